"""view (view, reshape, flatten, unflatten: TOSA RESHAPE; exact).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "view" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch

from etarm.testing.data_movement_checks import DTYPE_TARGETS, assert_dtypes_move_exactly, exact_cases, layout_cases
from etarm.testing.many_ops import assert_each_exact


def _views(x):
    fns = {"reshape_flat": lambda x: x.reshape(-1), "reshape_reversed": lambda x: x.reshape(x.shape[::-1])}
    if x.dim() > 1:
        fns |= {"flatten_1": lambda x: x.flatten(1), "unflatten_-1": lambda x: x.unflatten(-1, (x.shape[-1], 1))}
    return fns


def test_fp():
    cases = layout_cases(_views)
    exact_cases({"reshape of a 0-d tensor": lambda x: x.reshape(1, 1)}, torch.tensor(1.5), cases=cases)
    cases.assert_close_to_torch()


def test_views_emit_only_reshapes():
    fns = {"view": lambda x: x.view(3, 2, 1), "squeeze": lambda x: x.unsqueeze(0).squeeze(-1)}
    result = assert_each_exact(fns, (torch.randn(6, 1),))
    assert set(result.report["partitions"][0]["tosa_ops"]) == {"RESHAPE"}


@pytest.mark.parametrize("target", DTYPE_TARGETS)
def test_dtypes(target):
    assert_dtypes_move_exactly(lambda x: x.reshape(4, -1), target)
