"""addmm: beta * self + alpha * (a @ b).

FP extensions: bf16 and fp8 (nn.Linear with a bias); fp8 terms add in FP16, rounded once.

INT: self is rescaled onto the product's int32 steps and added (SUB for negative beta);
with beta 0 it is ignored; 1 LSB (a16w8: 2 LSB).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "addmm" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch

from etarm.compiler import compile_model
from etarm.testing.cpu_fallback import Fn
from etarm.testing.extension_floats import BF16_AND_FP8, assert_extension_float_close, assert_needs_extension
from etarm.testing.matmul_checks import a16w8_operands, assert_a16w8_matmul, seeded_randn
from etarm.testing.quantized_reference import assert_quantized_close
from etarm.testing.tosa_reference import assert_close_to_torch


@pytest.mark.parametrize(
    "self_shape,beta,alpha",
    [((5,), 1, 1), ((3, 5), 0.5, 2.0), ((3, 1), -1.0, 0.25)],
    ids=str,
)
def test_addmm(self_shape, beta, alpha):
    torch.manual_seed(2)
    inputs = (torch.randn(self_shape), torch.randn(3, 4), torch.randn(4, 5))
    assert_close_to_torch(Fn(lambda c, a, b: torch.addmm(c, a, b, beta=beta, alpha=alpha)), inputs)


def test_addmm_with_beta_zero_ignores_nan_in_self():
    torch.manual_seed(3)
    inputs = (torch.full((3, 5), float("nan")), torch.randn(3, 4), torch.randn(4, 5))
    assert_close_to_torch(Fn(lambda c, a, b: torch.addmm(c, a, b, beta=0)), inputs)


@pytest.mark.parametrize("self_shape, beta, alpha", [((5,), 1.0, 1.0), ((3, 5), -0.5, 2.0)], ids=str)
def test_int8_addmm(self_shape, beta, alpha):
    fn = Fn(lambda s, a, b: (torch.addmm(s, a, b, beta=beta, alpha=alpha), torch.addmm(s, a, b, beta=0.0, alpha=0.5)))
    run = assert_quantized_close(fn, seeded_randn(self_shape, (3, 4), (4, 5), seed=8))
    assert run.result.report["partitions"][0]["tosa_ops"].count("MATMUL") == 2


def test_a16w8_addmm():
    a, _b, c, s = a16w8_operands()
    assert_a16w8_matmul(lambda s, a, c: torch.addmm(s, a[0], c, beta=0.5), (s, a, c))


def test_negative_alpha_stays_on_cpu():
    fn = Fn(lambda s, a, b: torch.addmm(s, a, b, alpha=-1.0))
    report = compile_model(fn, seeded_randn((5,), (3, 4), (4, 5), seed=0), "TOSA-1.0+INT", quantize=True).report
    (reason,) = [entry["reason"] for entry in report["cpu_ops"] if entry["op"] == "aten.addmm.default"]
    assert reason == "alpha=-1.0 is not lowered for the INT profile (positive alpha only)"


# --- the FP extensions' floats: fp8 terms add in MATMUL's FP16 result, rounded to fp8 once ---


class _Linear(torch.nn.Module):
    """nn.Linear in ``dtype`` (torch cannot build one in fp8): with a bias, edge lowering gives addmm."""

    def __init__(self, dtype, inputs=6, outputs=3):
        super().__init__()
        gen = torch.Generator().manual_seed(outputs)
        self.weight = torch.nn.Parameter((torch.randn(outputs, inputs, generator=gen) / 3).to(dtype), False)
        self.bias = torch.nn.Parameter((torch.randn(outputs, generator=gen) / 4).to(dtype), False)

    def forward(self, x):
        return torch.nn.functional.linear(x, self.weight, self.bias)


@pytest.mark.parametrize("dtype", BF16_AND_FP8)
@pytest.mark.parametrize("shape", [(4, 6), (2, 5, 6), (1, 6)], ids=["rank2", "rank3", "one_row"])
def test_extension_float_linear_with_bias(dtype, shape):
    x = (torch.rand(shape, generator=torch.Generator().manual_seed(len(shape))) * 2 - 1).to(dtype)
    run = assert_extension_float_close(_Linear(dtype), (x,), dtype, scale=2.0)
    assert "MATMUL" in run.result.report["partitions"][0]["tosa_ops"]


@pytest.mark.parametrize("dtype", BF16_AND_FP8)
@pytest.mark.parametrize("self_shape, beta, alpha", [((4, 1), 0.5, 2.0), ((4, 3), -1.0, 0.25), ((3,), 0, 1)], ids=str)
def test_extension_float_addmm(dtype, self_shape, beta, alpha):
    gen = torch.Generator().manual_seed(9)
    c, a, b = ((torch.rand(s, generator=gen) * 2 - 1).to(dtype) for s in (self_shape, (4, 5), (5, 3)))
    assert_extension_float_close(
        Fn(lambda c, a, b: torch.addmm(c, a, b, beta=beta, alpha=alpha)), (c, a, b), dtype, 4.0
    )


@pytest.mark.parametrize("dtype", BF16_AND_FP8)
def test_extension_float_addmm_needs_its_extension(dtype):
    assert_needs_extension(_Linear(dtype), (torch.ones(2, 6).to(dtype),), dtype, "aten.addmm.default")
