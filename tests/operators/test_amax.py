"""amax (TOSA REDUCE_MAX; on INT the integers move unchanged, 0 LSB).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "amax" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.cpu_fallback import cpu_ops
from etarm.testing.reduction_checks import assert_int8_moves_unchanged, assert_int16_moves_unchanged, reduction_cases


def test_fp():
    reduction_cases("amax", nan_dim=1, float16_dim=1).assert_close_to_torch()


def test_empty_input_stays_on_cpu_with_a_reason():
    (reason,) = [r for op, r in cpu_ops(lambda x: x.amax(1), (torch.randn(0, 4),)) if op.startswith("aten.amax")]
    assert reason == "input has no elements (TOSA tensors cannot be empty)"


def test_int8_is_exact():
    assert_int8_moves_unchanged(lambda x: x.amax(-1), 3, 4, 5)


def test_int16_is_exact():
    assert_int16_moves_unchanged(lambda x: x.amax((1, 3)), 2, 3, 8, 9)
