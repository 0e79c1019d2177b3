"""erfinv (composed on FP; an int8 TABLE on INT).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "erfinv" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.unary_checks import assert_int8_tables_exact, math_cases


def test_fp():
    math_cases({"erfinv": torch.erfinv}).assert_close_to_torch()


def test_int8_table_is_exact():
    assert_int8_tables_exact(unit={"erfinv": torch.erfinv})
