"""sin (TOSA SIN on FP; an int8 TABLE, an exact int16 GATHER on INT).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "sin" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.unary_checks import assert_int8_tables_exact, assert_int16_lookups, math_cases, math_int32_input


def test_fp():
    cases = math_cases({"sin": torch.sin})
    cases.add("sin of int32, promoted to float", torch.sin, math_int32_input())
    cases.assert_close_to_torch()


def test_int8_table_is_exact():
    assert_int8_tables_exact(rank3={"sin": torch.sin})


def test_int16_exact_lookup():
    """sin is smooth, but in this calibration its output range clips it mid-segment, beyond
    the interpolated TABLE's 2 LSB: it takes the exact lookup."""
    assert_int16_lookups({"sin": (torch.sin, "GATHER", 0)})
