"""log (TOSA LOG on FP; an int8 TABLE, an exact int16 GATHER on INT).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "log" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.unary_checks import assert_int8_tables_exact, assert_int16_lookups, math_cases


def test_fp():
    math_cases({"log": torch.log}).assert_close_to_torch()


def test_int8_table_is_exact():
    assert_int8_tables_exact(positive={"log": torch.log})


def test_int16_exact_lookup():
    """log is singular at 0, which the int16 input range includes: the exact GATHER."""
    assert_int16_lookups({"log": (torch.log, None, 0)}, positive=True)
