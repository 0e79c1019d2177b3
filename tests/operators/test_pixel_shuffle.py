"""pixel_shuffle (RESHAPE, TRANSPOSE, RESHAPE; on INT the integers move unchanged, 0 LSB).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "pixel_shuffle" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch
import torch.nn.functional as F

from etarm.testing.cpu_fallback import Fn
from etarm.testing.reduction_checks import assert_int8_moves_unchanged
from etarm.testing.tosa_reference import assert_close_to_torch


@pytest.mark.parametrize("factor,shape", [(2, (2, 8, 5, 6)), (3, (9, 4, 5)), (2, (2, 3, 4, 3, 3))])
def test_pixel_shuffle(factor, shape):
    torch.manual_seed(0)
    run = assert_close_to_torch(Fn(lambda x: F.pixel_shuffle(x, factor)), (torch.randn(shape),), atol=0, rtol=0)
    assert run.result.report["partitions"][0]["tosa_ops"] == ["RESHAPE", "TRANSPOSE", "RESHAPE"]


def test_pixel_shuffle_int32():
    x = torch.arange(2 * 8 * 3 * 3, dtype=torch.int32).reshape(2, 8, 3, 3)
    assert_close_to_torch(Fn(lambda x: F.pixel_shuffle(x, 2)), (x,), atol=0, rtol=0)


def test_int8_is_exact():
    assert_int8_moves_unchanged(lambda x: F.pixel_shuffle(x, 2), 1, 8, 4, 6)
