"""tanh (TOSA TANH on FP; an int8 TABLE, the interpolated int16 TABLE on INT).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "tanh" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.unary_checks import assert_int8_tables_exact, assert_int16_lookups, math_cases, math_float16_input


def test_fp():
    cases = math_cases({"tanh": torch.tanh})
    cases.add("tanh of float16", torch.tanh, math_float16_input(), atol=2e-3, rtol=2e-3)
    cases.assert_close_to_torch()


def test_int8_table_is_exact():
    assert_int8_tables_exact(rank3={"tanh": torch.tanh})


def test_int16_interpolated_table():
    assert_int16_lookups({"tanh": (torch.tanh, "TABLE", 2)})
