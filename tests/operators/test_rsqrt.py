"""rsqrt (TOSA RSQRT on FP; an int8 TABLE on INT).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "rsqrt" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.unary_checks import assert_int8_tables_exact, math_cases


def test_fp():
    math_cases({"rsqrt": torch.rsqrt}).assert_close_to_torch()


def test_int8_table_is_exact():
    assert_int8_tables_exact(positive={"rsqrt": torch.rsqrt})
