"""atan (composed on FP; an int8 TABLE, the interpolated int16 TABLE on INT).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "atan" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.binary_checks import rank0_operands
from etarm.testing.unary_checks import assert_int8_tables_exact, assert_int16_lookups, math_cases


def test_fp():
    cases = math_cases({"atan": torch.atan}, float16=True)
    cases.add("atan of a 0-d tensor", torch.atan, rank0_operands()[1])
    cases.assert_close_to_torch()


def test_int8_table_is_exact():
    assert_int8_tables_exact(rank4={"atan": torch.atan})


def test_int16_interpolated_table():
    assert_int16_lookups({"atan": (torch.atan, "TABLE", 2)})
