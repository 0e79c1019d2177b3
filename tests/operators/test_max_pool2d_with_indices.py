"""max_pool2d (aten.max_pool2d_with_indices, values only: TOSA MAX_POOL2D; on INT the
integers move unchanged, 0 LSB).

A pool after a convolution keeps the NHWC layout: tests/operators/test_layout_cleanup.py.
Every target (FP, INT, Ethos-U55, Ethos-U85): the "max_pool2d_with_indices" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch
import torch.nn.functional as F

from etarm.compiler import compile_model
from etarm.testing.cpu_fallback import Fn, cpu_ops
from etarm.testing.partition_report import tosa_ops
from etarm.testing.quantized_reference import assert_quantized_close
from etarm.testing.reduction_checks import INT16, quantized_input, quantized_inputs
from etarm.testing.tosa_reference import assert_close_to_torch
from etarm.testing.extension_floats import BF16_AND_FP8, assert_extension_float_close, assert_needs_extension

# (kernel, stride, padding, ceil_mode, input shape)
MAX_POOL2D = [
    (2, None, 0, False, (2, 3, 8, 8)),
    (3, 2, 1, False, (2, 3, 7, 8)),
    (3, 2, 1, True, (1, 4, 8, 9)),  # ceil_mode: one more window, padded past the edge
    ((2, 3), (1, 2), (1, 0), False, (3, 7, 10)),  # unbatched, asymmetric
    (3, 3, 0, True, (1, 2, 10, 11)),
    (5, 1, 2, False, (2, 1, 5, 6)),
]


@pytest.mark.parametrize("kernel,stride,padding,ceil_mode,shape", MAX_POOL2D)
def test_max_pool2d(kernel, stride, padding, ceil_mode, shape):
    torch.manual_seed(0)
    fn = Fn(lambda x: F.max_pool2d(x, kernel, stride, padding, ceil_mode=ceil_mode))
    run = assert_close_to_torch(fn, (torch.randn(shape),), atol=0, rtol=0)
    assert "MAX_POOL2D" in run.result.report["partitions"][0]["tosa_ops"]


def test_max_pool2d_of_negative_values_ignores_padding():
    fn = Fn(lambda x: F.max_pool2d(x, 3, 2, 1, ceil_mode=True))
    assert_close_to_torch(fn, (-1 - torch.rand(1, 2, 6, 7),), atol=0, rtol=0)


def test_float16():
    torch.manual_seed(0)
    # float16: max is exact.
    assert_close_to_torch(
        Fn(lambda x: F.max_pool2d(x, 3, 2, 1)), (torch.randn(1, 3, 7, 8).half(),), atol=1e-3, rtol=1e-3
    )


# (kernel, stride, padding, dilation, ceil_mode, input shape): MAX_POOL2D per axis, rows a
# dilation apart grouped by residue.
DILATED = [
    (3, 1, 0, 2, False, (1, 2, 9, 9)),
    (3, 2, 1, 2, False, (2, 3, 11, 10)),  # padded: the lowest value never wins
    ((2, 3), (2, 1), (1, 1), (3, 2), True, (1, 2, 12, 9)),  # ceil_mode, per-axis settings
    (2, None, 0, (1, 3), False, (3, 8, 10)),  # unbatched; stride = kernel
]


@pytest.mark.parametrize("kernel,stride,padding,dilation,ceil_mode,shape", DILATED)
def test_dilated_max_pool(kernel, stride, padding, dilation, ceil_mode, shape):
    torch.manual_seed(0)
    fn = Fn(lambda x: F.max_pool2d(x, kernel, stride, padding, dilation, ceil_mode=ceil_mode))
    run = assert_close_to_torch(fn, (-1 - torch.rand(shape),), atol=0, rtol=0)
    assert run.result.report["partitions"][0]["tosa_ops"].count("MAX_POOL2D") >= 2


def test_dilated_int8_is_exact():
    fn = Fn(lambda x: F.max_pool2d(x, 3, 2, 1, dilation=2))
    run = assert_quantized_close(fn, (quantized_input(1, 3, 10, 11),), max_lsb=0)
    assert "RESCALE" not in tosa_ops(run)


def test_max_pool_indices_stay_on_cpu():
    assert cpu_ops(lambda x: F.max_pool2d(x, 2, return_indices=True), (torch.randn(1, 1, 8, 8),)) == [
        ("aten.max_pool2d_with_indices.default", "the indices output (return_indices=True) is not supported")
    ]


def test_int8_is_exact():
    fn = lambda x, y: (  # noqa: E731
        F.max_pool2d(x, 3, 2, 1),
        F.max_pool2d(x, 2, ceil_mode=True),  # odd size: a window past the edge
        F.max_pool2d(y, (2, 3), (1, 2), (1, 0)),  # unbatched, asymmetric
    )
    x, y, _z = quantized_inputs((2, 3, 9, 9), (3, 7, 10), (2, 3, 10))
    run = assert_quantized_close(Fn(fn), (x, y), max_lsb=0)
    assert tosa_ops(run).count("MAX_POOL2D") == 3 and "RESCALE" not in tosa_ops(run)


def test_int16_is_exact():
    fn = Fn(lambda x: F.max_pool2d(x, 3, 2, 1, ceil_mode=True))
    run = assert_quantized_close(fn, (quantized_input(2, 3, 8, 9),), INT16, max_lsb=0)
    assert run.result.report["partitions"][0]["inputs"][0]["dtype"] == "int16"


def test_int8_indices_stay_on_cpu():
    fn = Fn(lambda y: F.max_pool2d(y, 2, return_indices=True)[1])
    report = compile_model(fn, (quantized_input(1, 2, 5, 7),), "TOSA-1.0+INT", quantize=True).report
    reasons = {entry["op"]: entry["reason"] for entry in report["cpu_ops"]}
    assert "indices output" in reasons["aten.max_pool2d_with_indices.default"]


# --- the FP extensions' floats (MAX_POOL2D takes bf16 and fp8 alike) ---


@pytest.mark.parametrize("dtype", BF16_AND_FP8)
@pytest.mark.parametrize("kernel, stride, padding", [(2, 2, 0), (3, 1, 1), (3, 2, 1)])
def test_extension_float_max_pool2d(dtype, kernel, stride, padding):
    x = (torch.rand(1, 3, 7, 6, generator=torch.Generator().manual_seed(5)) * 4 - 2).to(dtype)
    pool = Fn(lambda t: F.max_pool2d(t, kernel, stride, padding))
    assert_extension_float_close(pool, (x,), dtype, scale=2.0)


@pytest.mark.parametrize("dtype", BF16_AND_FP8)
def test_extension_float_max_pool2d_needs_its_extension(dtype):
    pool = Fn(lambda t: F.max_pool2d(t, 2))
    assert_needs_extension(pool, (torch.ones(1, 2, 4, 4).to(dtype),), dtype, "aten.max_pool2d_with_indices.default")
