"""sign (composed on FP; an int8 TABLE, an exact int16 GATHER on INT).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "sign" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.unary_checks import assert_int8_tables_exact, assert_int16_lookups, math_cases


def test_fp():
    math_cases({"sign": torch.sign}).assert_close_to_torch()


def test_int8_table_is_exact():
    assert_int8_tables_exact(rank4={"sign": torch.sign})


def test_int16_exact_lookup():
    """A step function: the interpolated TABLE cannot follow it."""
    assert_int16_lookups({"sign": (torch.sign, "GATHER", 0)})
