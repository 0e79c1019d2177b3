"""pixel_unshuffle (RESHAPE, TRANSPOSE, RESHAPE; on INT the integers move unchanged, 0 LSB).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "pixel_unshuffle" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch
import torch.nn.functional as F

from etarm.testing.cpu_fallback import Fn
from etarm.testing.reduction_checks import assert_int8_moves_unchanged
from etarm.testing.tosa_reference import assert_close_to_torch


@pytest.mark.parametrize("factor,shape", [(2, (2, 2, 6, 4)), (3, (1, 6, 9)), (2, (2, 1, 3, 4, 6))])
def test_pixel_unshuffle(factor, shape):
    torch.manual_seed(0)
    assert_close_to_torch(Fn(lambda x: F.pixel_unshuffle(x, factor)), (torch.randn(shape),), atol=0, rtol=0)


def test_int8_is_exact():
    assert_int8_moves_unchanged(lambda x: F.pixel_unshuffle(x, 2), 1, 8, 4, 6)
