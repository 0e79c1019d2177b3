"""bitwise_left_shift of int32 (legal on FP: a product).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "bitwise_left_shift" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.comparison_checks import int32_shift_operands
from etarm.testing.packed_cases import Cases


def test_fp():
    Cases().add("bitwise_left_shift", torch.bitwise_left_shift, *int32_shift_operands()).assert_close_to_torch()
