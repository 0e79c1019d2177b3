"""split_with_sizes (split, chunk, unbind: TOSA SLICEs of the pieces used; exact).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "split_with_sizes" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch

from etarm.testing.cpu_fallback import cpu_ops
from etarm.testing.data_movement_checks import DTYPE_TARGETS, assert_dtypes_move_exactly, exact_cases
from etarm.testing.many_ops import assert_each_exact


def test_fp():
    fns = {
        **{f"split3_{i}": lambda x, i=i: x.split(3)[i] for i in range(3)},  # uneven: 3, 3, 1
        **{f"split_sizes_{i}": lambda x, i=i: x.split([1, 4], dim=-2)[i] for i in range(2)},
        **{f"chunk_{i}": lambda x, i=i: x.chunk(2, dim=2)[i] for i in range(2)},
        **{f"unbind_{i}": lambda x, i=i: x.unbind(-1)[i] for i in range(3)},
    }
    exact_cases(fns, torch.randn(7, 5, 3)).assert_close_to_torch()


def test_unused_pieces_emit_nothing():
    result = assert_each_exact({"middle": lambda x: x.split([2, 3, 2], dim=1)[1]}, (torch.randn(4, 7),))
    assert result.report["partitions"][0]["tosa_ops"] == ["SLICE"]


def test_unused_empty_pieces_are_fine():
    fns = {"after_empty": lambda x: x.split([2, 0, 3], dim=1)[2] * 2, "first": lambda x: x.split([2, 0, 3], dim=1)[0]}
    assert_each_exact(fns, (torch.randn(2, 5, 3),))


def test_a_used_empty_piece_stays_on_cpu():
    reasons = cpu_ops(lambda x: (x.split([2, 0, 3], 1)[1] + 1, x + 1), (torch.randn(2, 5, 3),))
    assert (
        "aten.split_with_sizes_copy.default",
        "result 1 is empty (shape [2, 0, 3]); TOSA tensors have no zero-size dimensions",
    ) in reasons


@pytest.mark.parametrize("target", DTYPE_TARGETS)
def test_dtypes(target):
    assert_dtypes_move_exactly(lambda x: x.split([1, 1], 0)[1], target)
