"""log1p (composed from LOG on FP; an int8 TABLE on INT).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "log1p" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.unary_checks import assert_int8_tables_exact, math_cases


def test_fp():
    math_cases({"log1p": torch.log1p}, float16=True).assert_close_to_torch()


def test_int8_table_is_exact():
    assert_int8_tables_exact(positive={"log1p": torch.log1p})
