"""log1p (composed from LOG on FP; an int8 TABLE on INT).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "log1p" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.unary_checks import assert_int8_tables_exact, math_cases, math_float16_input


def test_fp():
    cases = math_cases({"log1p": torch.log1p})
    cases.add("log1p of float16", torch.log1p, math_float16_input(), atol=2e-3, rtol=2e-3)
    cases.assert_close_to_torch()


def test_int8_table_is_exact():
    assert_int8_tables_exact(positive={"log1p": torch.log1p})
