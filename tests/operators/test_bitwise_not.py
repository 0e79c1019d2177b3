"""bitwise_not (~): of bools on FP; of integers TOSA BITWISE_NOT, which needs the INT profile.

Every target (FP, INT, Ethos-U55, Ethos-U85): the "bitwise_not" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

from etarm.testing.comparison_checks import comparison_cases, int32_bitwise_operands
from etarm.testing.packed_cases import Cases


def test_fp_bools():
    comparison_cases({"bitwise_not_bool": lambda a, b: ~(a > 0)}).assert_close_to_torch()


def test_int32_with_int_profile():
    a, _b, _s = int32_bitwise_operands()
    Cases().add("bitwise_not", lambda x: ~x, a).assert_close_to_torch("TOSA-1.0+FP+INT")
