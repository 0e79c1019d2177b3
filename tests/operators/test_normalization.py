"""Normalizations on the TOSA FP profile: layer_norm, group_norm, batch_norm (inference), rms_norm."""

import pytest
import torch
import torch.nn.functional as F

from etarm.compiler import compile_model
from etarm.testing.cpu_fallback import Fn
from etarm.testing.tosa_reference import assert_close_to_torch


def randomize(module: torch.nn.Module) -> torch.nn.Module:
    """Non-trivial affine parameters and running statistics (defaults are ones and zeros)."""
    with torch.no_grad():
        for name, tensor in list(module.named_parameters()) + list(module.named_buffers()):
            if tensor.is_floating_point():
                if "var" in name:
                    tensor.uniform_(0.5, 2.0)
                else:
                    tensor.uniform_(-1.0, 1.0)
    return module.eval()


@pytest.mark.parametrize(
    "shape,normalized,affine,bias",
    [
        ((7,), 1, True, True),
        ((3, 5), 1, False, False),
        ((2, 3, 4), 2, True, True),
        ((2, 3, 4, 5), 3, True, False),
        ((1, 2, 3, 4, 5), 1, True, True),
    ],
    ids=str,
)
def test_layer_norm(shape, normalized, affine, bias):
    torch.manual_seed(0)
    module = randomize(torch.nn.LayerNorm(shape[-normalized:], elementwise_affine=affine, bias=bias))
    run = assert_close_to_torch(module, (torch.randn(shape) * 3 + 1,))
    assert run.result.report["partitions"][0]["tosa_ops"].count("REDUCE_SUM") == 2  # one axis after flattening


def test_native_layer_norm_mean_and_rstd_results():
    torch.manual_seed(1)
    weight, bias = torch.randn(4, 5), torch.randn(4, 5)
    fn = lambda x: torch.native_layer_norm(x, [4, 5], weight, bias, 1e-3)
    assert_close_to_torch(Fn(fn), (torch.randn(2, 3, 4, 5),))


@pytest.mark.parametrize(
    "shape,groups,affine",
    [((2, 6, 5), 3, True), ((2, 4, 3, 3), 1, True), ((1, 6, 2, 3, 2), 6, True), ((3, 4, 7), 2, False)],
    ids=str,
)
def test_group_norm(shape, groups, affine):
    torch.manual_seed(2)
    module = randomize(torch.nn.GroupNorm(groups, shape[1], affine=affine))
    assert_close_to_torch(module, (torch.randn(shape) * 2 - 1,))


def test_native_group_norm_mean_and_rstd_results():
    torch.manual_seed(3)
    weight, bias = torch.randn(6), torch.randn(6)
    fn = lambda x: torch.native_group_norm(x, weight, bias, 2, 6, 12, 3, 1e-4)
    assert_close_to_torch(Fn(fn), (torch.randn(2, 6, 3, 4),))


@pytest.mark.parametrize(
    "module,shape",
    [
        (torch.nn.BatchNorm1d(3), (4, 3)),
        (torch.nn.BatchNorm1d(3), (2, 3, 7)),
        (torch.nn.BatchNorm2d(5), (2, 5, 3, 4)),
        (torch.nn.BatchNorm3d(3, affine=False), (1, 3, 2, 3, 4)),
    ],
    ids=["1d-rank2", "1d-rank3", "2d", "3d-no-affine"],
)
def test_batch_norm_inference_folds_constants(module, shape):
    torch.manual_seed(4)
    run = assert_close_to_torch(randomize(module), (torch.randn(shape),))
    assert run.result.report["partitions"][0]["tosa_ops"] == ["MUL", "ADD"]


@pytest.mark.parametrize("with_affine", [True, False], ids=["affine", "no-affine"])
def test_batch_norm_inference_with_runtime_statistics(with_affine):
    torch.manual_seed(5)
    x, mean, var = torch.randn(2, 4, 3, 3), torch.randn(4), torch.rand(4) + 0.5
    if with_affine:
        # Inputs in the order the op reads them (input, weight, bias, mean, var): the partition
        # takes its inputs in that order.
        inputs = (x, torch.randn(4), torch.randn(4), mean, var)
        fn = lambda x, w, b, m, v: F.batch_norm(x, m, v, w, b, training=False, eps=1e-3)
    else:
        inputs = (x, mean, var)
        fn = lambda x, m, v: F.batch_norm(x, m, v, training=False)
    assert_close_to_torch(Fn(fn), inputs)


@pytest.mark.parametrize(
    "shape,normalized,eps,affine",
    [((5,), 1, 1e-6, True), ((2, 3, 4), 2, None, True), ((2, 1, 3, 8), 1, 1e-2, False), ((1, 2, 2, 3, 5), 3, None, True)],
    ids=str,
)
def test_rms_norm_is_lowered_whole(shape, normalized, eps, affine):
    torch.manual_seed(6)
    module = randomize(torch.nn.RMSNorm(shape[-normalized:], eps=eps, elementwise_affine=affine))
    run = assert_close_to_torch(module, (torch.randn(shape) * 2,))
    assert run.result.report["partitions"][0]["aten_ops"] == ["aten.rms_norm.default"]


def test_float16_normalizations():
    """FP16 statistics are computed in FP32 like torch on CPU; tolerance ~ one FP16 rounding."""
    torch.manual_seed(7)

    class Norms(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.layer = randomize(torch.nn.LayerNorm(8))
            self.group = randomize(torch.nn.GroupNorm(2, 4))
            self.batch = randomize(torch.nn.BatchNorm1d(4))
            self.rms = randomize(torch.nn.RMSNorm(8))

        def forward(self, x):
            return self.layer(x), self.group(x), self.batch(x), self.rms(x)

    assert_close_to_torch(Norms().half().eval(), ((torch.randn(3, 4, 8) * 2).half(),), atol=4e-3, rtol=2e-3)


def test_bfloat16_layer_norm_stays_on_cpu_with_a_reason():
    module = torch.nn.LayerNorm(8).to(torch.bfloat16)
    report = compile_model(module, (torch.randn(2, 8, dtype=torch.bfloat16),), "TOSA-1.0+FP").report
    reasons = [entry["reason"] for entry in report["cpu_ops"] if entry["op"].startswith("aten.native_layer_norm")]
    assert reasons == ["input dtype torch.bfloat16 is not supported (only float32/float16)"]
