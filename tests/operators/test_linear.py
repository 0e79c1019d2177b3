"""linear, lowered whole: a MATMUL with the weight transpose folded (FP); a 1x1 CONV2D (INT).

INT: exact int8 accumulation, then one RESCALE: 1 LSB; int16 activations x int8 weights:
a 16-bit multiplier on the int48 accumulator, 2 LSB.

Every target (FP, INT, Ethos-U55, Ethos-U85): the "linear" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch
import torch.nn.functional as F

from etarm.testing.cpu_fallback import Fn
from etarm.testing.matmul_checks import INT16, seeded_randn
from etarm.testing.partition_report import tosa_ops
from etarm.testing.quantized_reference import assert_quantized_close
from etarm.testing.tosa_reference import assert_close_to_torch


@pytest.mark.parametrize(
    "input_shape,bias",
    [((6,), True), ((3, 6), False), ((2, 1, 3, 6), True), ((2, 2, 1, 3, 6), False)],
    ids=str,
)
def test_linear_is_lowered_whole(input_shape, bias):
    torch.manual_seed(4)
    module = torch.nn.Linear(6, 5, bias=bias).eval()
    run = assert_close_to_torch(module, (torch.randn(input_shape),))
    assert run.result.report["partitions"][0]["aten_ops"] == ["aten.linear.default"]
    # The weight transpose is folded into the constant: no TRANSPOSE, one MATMUL.
    assert "TRANSPOSE" not in tosa_ops(run) and tosa_ops(run).count("MATMUL") == 1


def test_linear_with_runtime_weight():
    torch.manual_seed(5)
    inputs = (torch.randn(2, 3, 6), torch.randn(4, 6), torch.randn(4))
    run = assert_close_to_torch(Fn(lambda x, w, b: F.linear(x, w, b)), inputs)
    assert "TRANSPOSE" in tosa_ops(run)


def test_float16_accumulates_in_float32():
    """MATMUL writes FP32 and casts once, as torch accumulates half products in float on CPU."""
    torch.manual_seed(10)
    x, _y, _q = torch.randn(5, 32), torch.randn(32, 7), torch.randn(1, 2, 4, 8)  # mm's and attention's
    module = torch.nn.Linear(32, 8)
    run = assert_close_to_torch(module.half().eval(), (x.half(),), atol=2e-3, rtol=2e-3)
    assert "CAST" in tosa_ops(run)


@pytest.mark.parametrize("input_shape, bias", [((7,), True), ((2, 3, 7), False), ((2, 1, 3, 7), True)], ids=str)
def test_int8_linear(input_shape, bias):
    torch.manual_seed(5)
    run = assert_quantized_close(torch.nn.Linear(7, 5, bias=bias).eval(), seeded_randn(input_shape, seed=0))
    assert tosa_ops(run) == ["RESHAPE", "CONV2D", "RESCALE", "RESHAPE"]


def test_int8_linear_relu_fused():
    torch.manual_seed(6)
    model = torch.nn.Sequential(torch.nn.Linear(6, 9), torch.nn.ReLU(), torch.nn.Linear(9, 4)).eval()
    run = assert_quantized_close(model, seeded_randn((4, 6), seed=0))
    assert tosa_ops(run).count("RESCALE") == 2 and "CLAMP" not in tosa_ops(run)


def test_a16w8_linear():
    torch.manual_seed(9)
    model = torch.nn.Linear(8, 6).eval()
    run = assert_quantized_close(model, seeded_randn((2, 3, 8), seed=0), target=INT16, max_lsb=2)
    partition = run.result.report["partitions"][0]
    assert partition["inputs"][0]["dtype"] == "int16" and partition["outputs"][0]["zero_point"] == 0
