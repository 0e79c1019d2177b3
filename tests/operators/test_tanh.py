"""tanh (TOSA TANH on FP; an int8 TABLE, the interpolated int16 TABLE on INT).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "tanh" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.unary_checks import assert_int8_tables_exact, assert_int16_lookups, math_cases


def test_fp():
    math_cases({"tanh": torch.tanh}, float16=True).assert_close_to_torch()


def test_int8_table_is_exact():
    assert_int8_tables_exact(rank3={"tanh": torch.tanh})


def test_int16_interpolated_table():
    assert_int16_lookups({"tanh": (torch.tanh, "TABLE", 2)})
