"""max_pool1d/2d, avg_pool1d/2d and adaptive_avg_pool2d on the TOSA FP profile."""

import pytest
import torch
import torch.nn.functional as F

from etarm.testing.cpu_fallback import Fn, cpu_ops
from etarm.testing.tosa_reference import assert_close_to_torch


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


@pytest.mark.parametrize("kernel,stride,padding,ceil_mode,shape", [(3, 2, 1, False, (2, 3, 9)), (2, 3, 1, True, (3, 10)), (4, None, 0, False, (1, 2, 13))])
def test_max_pool1d(kernel, stride, padding, ceil_mode, shape):
    torch.manual_seed(0)
    fn = Fn(lambda x: F.max_pool1d(x, kernel, stride, padding, ceil_mode=ceil_mode))
    assert_close_to_torch(fn, (torch.randn(shape),), atol=0, rtol=0)


# (kernel, stride, padding, ceil_mode, count_include_pad, divisor_override, input shape)
AVG_POOL2D = [
    (2, None, 0, False, True, None, (2, 3, 8, 8)),
    (3, 2, 1, False, True, None, (2, 3, 7, 8)),
    (3, 2, 1, False, False, None, (2, 3, 7, 8)),
    (3, 2, 1, True, True, None, (1, 2, 8, 9)),
    (3, 2, 1, True, False, None, (1, 2, 8, 9)),
    ((2, 4), (3, 2), (1, 2), True, True, None, (2, 9, 10)),  # unbatched
    (3, 2, 1, True, True, 5, (1, 2, 8, 9)),
    (2, 2, 0, False, True, 3, (2, 3, 7, 7)),
    (3, 1, 1, False, False, None, (1, 1, 4, 5)),
]


@pytest.mark.parametrize("kernel,stride,padding,ceil_mode,count_include_pad,divisor,shape", AVG_POOL2D)
def test_avg_pool2d(kernel, stride, padding, ceil_mode, count_include_pad, divisor, shape):
    torch.manual_seed(0)
    fn = Fn(lambda x: F.avg_pool2d(x, kernel, stride, padding, ceil_mode, count_include_pad, divisor))
    run = assert_close_to_torch(fn, (torch.randn(shape),))
    assert "AVG_POOL2D" in run.result.report["partitions"][0]["tosa_ops"]


@pytest.mark.parametrize(
    "kernel,stride,padding,ceil_mode,count_include_pad,shape",
    [(3, 2, 1, False, True, (2, 3, 9)), (3, 2, 1, True, False, (2, 3, 10)), (2, None, 0, False, True, (4, 7))],
)
def test_avg_pool1d(kernel, stride, padding, ceil_mode, count_include_pad, shape):
    torch.manual_seed(0)
    fn = Fn(lambda x: F.avg_pool1d(x, kernel, stride, padding, ceil_mode, count_include_pad))
    assert_close_to_torch(fn, (torch.randn(shape),))


@pytest.mark.parametrize(
    "output_size,shape",
    [((1, 1), (2, 3, 7, 9)), (2, (1, 4, 8, 6)), ((3, 1), (2, 3, 7, 8)), ((4, 5), (3, 8, 10)), ((7, 9), (1, 2, 7, 9))],
)
def test_adaptive_avg_pool2d(output_size, shape):
    torch.manual_seed(0)
    assert_close_to_torch(Fn(lambda x: F.adaptive_avg_pool2d(x, output_size)), (torch.randn(shape),))


def test_float16_pools():
    torch.manual_seed(0)
    fn = Fn(lambda x: (F.max_pool2d(x, 3, 2, 1), F.avg_pool2d(x, 2, ceil_mode=True)))
    # float16: both sides average in fp32, rounding to fp16 only at the end; max is exact.
    assert_close_to_torch(fn, (torch.randn(1, 3, 7, 8).half(),), atol=1e-3, rtol=1e-3)


def test_pool_after_conv_keeps_channels_last():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.MaxPool2d(2, ceil_mode=True), torch.nn.AvgPool2d(2))
    run = assert_close_to_torch(model, (torch.randn(1, 3, 12, 11),), atol=1e-4, rtol=1e-4)
    assert run.result.report["partitions"][0]["tosa_ops"].count("TRANSPOSE") == 2


def test_dilated_max_pool_stays_on_cpu():
    assert cpu_ops(lambda x: F.max_pool2d(x, 2, dilation=2), (torch.randn(1, 1, 8, 8),)) == [
        ("aten.max_pool2d_with_indices.default", "dilation [2, 2] is not supported (TOSA MAX_POOL2D has no dilation)")
    ]


def test_max_pool_indices_stay_on_cpu():
    assert cpu_ops(lambda x: F.max_pool2d(x, 2, return_indices=True), (torch.randn(1, 1, 8, 8),)) == [
        ("aten.max_pool2d_with_indices.default", "the indices output (return_indices=True) is not supported")
    ]


def test_irregular_adaptive_pool_stays_on_cpu():
    assert cpu_ops(lambda x: F.adaptive_avg_pool2d(x, 3), (torch.randn(1, 1, 5, 6),)) == [
        ("aten._adaptive_avg_pool2d.default", "output_size [3, 3] does not divide input size [5, 6] into equal windows")
    ]
