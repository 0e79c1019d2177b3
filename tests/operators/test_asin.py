"""asin (composed on FP; an int8 TABLE, an int16 lookup on INT).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "asin" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.unary_checks import assert_int8_tables_exact, assert_int16_lookups, math_cases, math_float16_input


def test_fp():
    cases = math_cases({"asin": torch.asin})
    cases.add("asin of float16", torch.asin, math_float16_input(), atol=2e-3, rtol=2e-3)
    cases.assert_close_to_torch()


def test_int8_table_is_exact():
    assert_int8_tables_exact(unit={"asin": torch.asin})


def test_int16():
    assert_int16_lookups({"asin": (lambda x: torch.asin(x / 6.0), None, 2)}, positive=True)
