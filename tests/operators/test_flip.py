"""flip (TOSA REVERSE per axis; exact).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "flip" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest

from etarm.testing.data_movement_checks import DTYPE_TARGETS, assert_dtypes_move_exactly, layout_cases


def _flips(x):
    fns = {"flip_0": lambda x: x.flip(0), "flip_-1": lambda x: x.flip(-1)}
    if x.dim() > 1:
        fns["flip_0_-1"] = lambda x: x.flip(0, -1)
    if x.dim() > 2:
        fns["flip_1_2"] = lambda x: x.flip(1, 2)
    return fns


def test_fp():
    layout_cases(_flips, keep_same_shape=True).assert_close_to_torch()


@pytest.mark.parametrize("target", DTYPE_TARGETS)
def test_dtypes(target):
    assert_dtypes_move_exactly(lambda x: x.flip(-1), target)
