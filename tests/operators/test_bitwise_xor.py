"""bitwise_xor (^): of bools on FP; of integers TOSA BITWISE_XOR, which needs the INT profile.

Every target (FP, INT, Ethos-U55, Ethos-U85): the "bitwise_xor" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

from etarm.testing.comparison_checks import comparison_cases, int32_bitwise_operands
from etarm.testing.packed_cases import Cases


def test_fp_bools():
    comparison_cases({"bitwise_xor_bool": lambda a, b: (a > 0) ^ (b > 0)}).assert_close_to_torch()


def test_int32_with_int_profile():
    a, b, _s = int32_bitwise_operands()
    Cases().add("bitwise_xor", lambda x, y: x ^ y, a, b).assert_close_to_torch("TOSA-1.0+FP+INT")
