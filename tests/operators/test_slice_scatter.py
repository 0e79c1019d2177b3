"""slice_scatter (CONCAT of the untouched parts and the source; steps > 1 interleave it; exact).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "slice_scatter" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch

from etarm.testing.data_movement_checks import DTYPE_TARGETS, assert_dtypes_move_exactly, exact_cases


def test_fp():
    """Each src is the slice it replaces, flipped, so every position changes."""

    def scatter(dim, start, end, step):
        index = (slice(None),) * dim + (slice(start, end, step),)
        return lambda x: torch.slice_scatter(x, x[index].flip(dim), dim, start, end, step)

    fns = {
        "step1": scatter(0, 1, 3, 1),
        "step2_padded": scatter(1, None, None, 2),
        "step3": scatter(1, 1, None, 3),
        "negative_start": scatter(2, -3, None, 1),
        "step2_inner": scatter(2, 1, 6, 2),
        "step2_shifted": scatter(1, 4, 7, 2),  # the span starts one early
        "end_only": scatter(1, None, 2, 1),
    }
    exact_cases(fns, torch.randn(4, 7, 6)).assert_close_to_torch()


@pytest.mark.parametrize("target", DTYPE_TARGETS)
def test_dtypes(target):
    assert_dtypes_move_exactly(lambda x: torch.slice_scatter(x, x[:, ::2].flip(1), 1, 0, None, 2), target)
