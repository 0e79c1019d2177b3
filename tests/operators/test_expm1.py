"""expm1 (composed from EXP on FP; an int8 TABLE on INT).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "expm1" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.unary_checks import assert_int8_tables_exact, math_cases


def test_fp():
    math_cases({"expm1": torch.expm1}, float16=True).assert_close_to_torch()


def test_int8_table_is_exact():
    assert_int8_tables_exact(rank3={"expm1": torch.expm1})
