"""neg (TOSA NEGATE; an int8 TABLE, int16 NEGATE on INT).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "neg" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.packed_cases import Cases
from etarm.testing.unary_checks import assert_int8_tables_exact, assert_int16_lookups, math_cases


def test_fp():
    math_cases({"neg": torch.neg}).assert_close_to_torch()


def test_neg_int32_on_fp_profile():
    x = torch.tensor([[-5, 0, 7], [2147483647, -2147483647, 1]], dtype=torch.int32)
    Cases().add("neg", torch.neg, x).assert_close_to_torch()


def test_int8_table_is_exact():
    assert_int8_tables_exact(rank4={"neg": torch.neg})


def test_int16_integer_negate():
    """An integer NEGATE and one RESCALE: 1 LSB (rounding of the rescale)."""
    assert_int16_lookups({"neg": (torch.neg, "NEGATE", 1)})
