"""expand (TOSA TILE; exact).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "expand" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest

from etarm.testing.data_movement_checks import DTYPE_TARGETS, assert_dtypes_move_exactly, assert_tiles_exact


def test_fp():
    fns = {
        "expand_axis": lambda x: x.expand(3, 4, 5),
        "expand_new_axes_and_-1": lambda x: x.expand(2, -1, 6, -1),
        "expand_leading_1": lambda x: x.expand(1, 3, 1, 5),
        "expand_after_slice": lambda x: x[:, :, :1].expand(-1, 2, 7),
    }
    assert_tiles_exact(fns, {"expand of a 0-d tensor": lambda x: x.expand(2, 3)})


@pytest.mark.parametrize("target", DTYPE_TARGETS)
def test_dtypes(target):
    assert_dtypes_move_exactly(lambda x: x.expand(2, 2, 3, 4)[1], target)
