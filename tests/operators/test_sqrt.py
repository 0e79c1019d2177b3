"""sqrt (composed on FP; an int8 TABLE, an exact int16 GATHER on INT).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "sqrt" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.binary_checks import rank0_operands
from etarm.testing.unary_checks import assert_int8_tables_exact, assert_int16_lookups, math_cases, math_int32_input


def test_fp():
    cases = math_cases({"sqrt": torch.sqrt}, float16=True)
    cases.add("sqrt of int32, promoted to float", torch.sqrt, math_int32_input())
    cases.add("sqrt of a 0-d tensor", torch.sqrt, rank0_operands()[0])
    cases.assert_close_to_torch()


def test_int8_table_is_exact():
    assert_int8_tables_exact(positive={"sqrt": torch.sqrt})


def test_int16_exact_lookup():
    """sqrt's slope is singular at 0, which the int16 input range includes: the exact GATHER."""
    assert_int16_lookups({"sqrt": (torch.sqrt, None, 0)}, positive=True)
