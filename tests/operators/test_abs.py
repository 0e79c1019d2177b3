"""abs (TOSA ABS; composed for int32 without the INT profile; an int8 TABLE, int16 ABS on INT).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "abs" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch

from etarm.testing.many_ops import assert_each_close_to_torch
from etarm.testing.unary_checks import assert_int8_tables_exact, assert_int16_lookups, math_cases


def test_fp():
    math_cases({"abs": torch.abs}).assert_close_to_torch()


@pytest.mark.parametrize("target", ["TOSA-1.0+FP", "TOSA-1.0+FP+INT"])
def test_abs_int32(target):
    # INT profile: ABS; FP alone (int32 ABS is PRO-INT): composed from legal ops.
    x = torch.tensor([[-3, 4, 0], [2147483647, -2147483647, -1]], dtype=torch.int32)
    run = assert_each_close_to_torch({"abs": torch.abs}, (x,), target=target)
    assert ("ABS" in run.report["partitions"][0]["tosa_ops"]) == (target == "TOSA-1.0+FP+INT")


def test_int8_table_is_exact():
    assert_int8_tables_exact(rank4={"abs": torch.abs})


def test_int16_integer_abs():
    """An integer ABS and one RESCALE: 1 LSB (rounding of the rescale)."""
    assert_int16_lookups({"abs": (torch.abs, "ABS", 1)})
