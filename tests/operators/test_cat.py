"""cat (cat and stack: TOSA CONCAT; exact).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "cat" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch

from etarm.testing.data_movement_checks import DTYPE_TARGETS, assert_dtypes_move_exactly, exact_cases


def test_fp():
    inputs = (torch.randn(3), torch.randn(1), torch.randn(2, 3, 4), torch.randn(2, 1, 4), torch.randn(1, 2, 1, 3, 2))
    fns = {
        "rank1": lambda a, b, c, d, e: torch.cat([a, b, a]),
        "rank3_negative_dim": lambda a, b, c, d, e: torch.cat([c, d, c], -2),
        "rank3_dim0": lambda a, b, c, d, e: torch.cat([c, c]),
        "rank5_last": lambda a, b, c, d, e: torch.cat([e, e[..., :1]], 4),
        "stack": lambda a, b, c, d, e: torch.stack([c, c]),
        "stack_-1": lambda a, b, c, d, e: torch.stack([d, d, d], -1),
        "stack_one": lambda a, b, c, d, e: torch.stack([a], 1),
    }
    exact_cases(fns, *inputs).assert_close_to_torch()


@pytest.mark.parametrize("target", DTYPE_TARGETS)
def test_dtypes(target):
    assert_dtypes_move_exactly(lambda x: torch.cat([x, x[:, :1]], 1), target)
