"""repeat (repeat, tile, repeat_interleave: TOSA TILE; exact).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "repeat" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest

from etarm.testing.data_movement_checks import DTYPE_TARGETS, assert_dtypes_move_exactly, assert_tiles_exact


def test_fp():
    fns = {
        "repeat": lambda x: x.repeat(2, 3, 1),
        "repeat_more_axes": lambda x: x.repeat(2, 1, 1, 2),
        "tile": lambda x: x.tile((2,)),
        "repeat_interleave": lambda x: x.repeat_interleave(2, dim=1),
        "repeat_interleave_last": lambda x: x.repeat_interleave(3, dim=-1),
    }
    assert_tiles_exact(fns, {"repeat of a 0-d tensor": lambda x: x.repeat(2, 2)})


@pytest.mark.parametrize("target", DTYPE_TARGETS)
def test_dtypes(target):
    assert_dtypes_move_exactly(lambda x: x.repeat(1, 1, 2), target)
