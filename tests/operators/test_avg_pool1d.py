"""avg_pool1d (TOSA AVG_POOL2D over one spatial axis; on INT window sums and a RESCALE, 1 LSB).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "avg_pool1d" rows of
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
    "kernel,stride,padding,ceil_mode,count_include_pad,shape",
    [(3, 2, 1, False, True, (2, 3, 9)), (3, 2, 1, True, False, (2, 3, 10)), (2, None, 0, False, True, (4, 7))],
)
def test_avg_pool1d(kernel, stride, padding, ceil_mode, count_include_pad, shape):
    torch.manual_seed(0)
    fn = Fn(lambda x: F.avg_pool1d(x, kernel, stride, padding, ceil_mode, count_include_pad))
    assert_close_to_torch(fn, (torch.randn(shape),))


def test_int8():
    x, _y, _z = quantized_inputs((2, 3, 13), (1, 4, 9, 8), (2, 16, 7, 7))
    fn = Fn(lambda x: F.avg_pool1d(x, 4, 3, 2, ceil_mode=True, count_include_pad=False))
    run = assert_quantized_close(fn, (x,))
    assert tosa_ops(run).count("DEPTHWISE_CONV2D") == 1
