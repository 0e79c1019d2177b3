"""constant_pad_nd (TOSA PAD; negative amounts crop; exact).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "constant_pad_nd" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch
import torch.nn.functional as F

from etarm.testing.data_movement_checks import DTYPE_TARGETS, assert_dtypes_move_exactly, exact_cases


def test_fp():
    inputs = (
        torch.randn(5),
        torch.randn(3, 4),
        torch.randn(2, 3, 4),
        torch.randn(1, 2, 3, 4),
        torch.randn(2, 1, 3, 2, 3),
    )
    fns = {
        "rank1": lambda a, b, c, d, e: F.pad(a, (2, 3)),
        "rank2_value": lambda a, b, c, d, e: F.pad(b, (1, 0, 0, 2), value=-1.5),
        "rank3_crop": lambda a, b, c, d, e: F.pad(c, (-1, 2, 1, -1), value=0.25),  # negative amounts crop
        "rank4_mixed": lambda a, b, c, d, e: F.pad(d, (0, 0, 1, 1, -1, 0, 2, 0), value=7.0),
        "rank5_all_axes": lambda a, b, c, d, e: F.pad(e, (1,) * 10, value=float("inf")),
    }
    exact_cases(fns, *inputs).assert_close_to_torch()


@pytest.mark.parametrize("target", DTYPE_TARGETS)
def test_dtypes(target):
    assert_dtypes_move_exactly(lambda x: F.pad(x, (1, 1), value=1), target)
