"""max_pool1d (TOSA MAX_POOL2D over one spatial axis; on INT exact, 0 LSB).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "max_pool1d" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch
import torch.nn.functional as F

from etarm.testing.cpu_fallback import Fn
from etarm.testing.partition_report import tosa_ops
from etarm.testing.quantized_reference import assert_quantized_close
from etarm.testing.reduction_checks import quantized_inputs
from etarm.testing.tosa_reference import assert_close_to_torch


@pytest.mark.parametrize(
    "kernel,stride,padding,ceil_mode,shape",
    [(3, 2, 1, False, (2, 3, 9)), (2, 3, 1, True, (3, 10)), (4, None, 0, False, (1, 2, 13))],
)
def test_max_pool1d(kernel, stride, padding, ceil_mode, shape):
    torch.manual_seed(0)
    fn = Fn(lambda x: F.max_pool1d(x, kernel, stride, padding, ceil_mode=ceil_mode))
    assert_close_to_torch(fn, (torch.randn(shape),), atol=0, rtol=0)


def test_int8_is_exact():
    _x, _y, z = quantized_inputs((2, 3, 9, 9), (3, 7, 10), (2, 3, 10))
    run = assert_quantized_close(Fn(lambda z: F.max_pool1d(z, 3, 2, 1, ceil_mode=True)), (z,), max_lsb=0)
    assert tosa_ops(run).count("MAX_POOL2D") == 1 and "RESCALE" not in tosa_ops(run)


def test_dilated_max_pool1d():
    torch.manual_seed(0)
    fn = Fn(lambda x: F.max_pool1d(x, 3, 2, 1, dilation=3))
    assert_close_to_torch(fn, (torch.randn(2, 4, 17),), atol=0, rtol=0)
