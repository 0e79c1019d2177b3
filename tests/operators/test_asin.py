"""asin (composed on FP; an int8 TABLE, an int16 lookup on INT).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "asin" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.unary_checks import assert_int8_tables_exact, assert_int16_lookups, math_cases


def test_fp():
    math_cases({"asin": torch.asin}, float16=True).assert_close_to_torch()


def test_int8_table_is_exact():
    assert_int8_tables_exact(unit={"asin": torch.asin})


def test_int16():
    assert_int16_lookups({"asin": (lambda x: torch.asin(x / 6.0), None, 2)}, positive=True)
