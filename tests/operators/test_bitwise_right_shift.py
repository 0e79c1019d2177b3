"""bitwise_right_shift of int32: by a constant on FP (a floor division); by a tensor TOSA
ARITHMETIC_RIGHT_SHIFT, which needs the INT profile.

Every target (FP, INT, Ethos-U55, Ethos-U85): the "bitwise_right_shift" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.comparison_checks import int32_bitwise_operands, int32_shift_operands
from etarm.testing.packed_cases import Cases


def test_fp():
    x, _s = int32_shift_operands()
    Cases().add("bitwise_right_shift_scalar", lambda a: torch.bitwise_right_shift(a, 4), x).assert_close_to_torch()


def test_by_a_tensor_with_int_profile():
    a, _b, s = int32_bitwise_operands()
    Cases().add("bitwise_right_shift", torch.bitwise_right_shift, a, s).assert_close_to_torch("TOSA-1.0+FP+INT")
