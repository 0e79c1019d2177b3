"""expm1 (composed from EXP on FP; an int8 TABLE on INT).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "expm1" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.unary_checks import assert_int8_tables_exact, math_cases, math_float16_input


def test_fp():
    cases = math_cases({"expm1": torch.expm1})
    cases.add("expm1 of float16", torch.expm1, math_float16_input(), atol=2e-3, rtol=2e-3)
    cases.assert_close_to_torch()


def test_int8_table_is_exact():
    assert_int8_tables_exact(rank3={"expm1": torch.expm1})
