"""floor (TOSA FLOOR on FP; an int8 TABLE, an exact int16 GATHER on INT).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "floor" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.unary_checks import assert_int8_tables_exact, assert_int16_lookups, math_cases


def test_fp():
    math_cases({"floor": torch.floor}).assert_close_to_torch()


def test_int8_table_is_exact():
    run = assert_int8_tables_exact(rank4={"floor": torch.floor}, scalar={"floor": torch.floor})
    assert run.tosa_outputs[1].shape == ()  # a 0-d input keeps its shape


def test_int16_exact_lookup():
    """A step function: the interpolated TABLE cannot follow it."""
    assert_int16_lookups({"floor": (torch.floor, "GATHER", 0)})
