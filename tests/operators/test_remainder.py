"""remainder (torch's sign of the divisor), of floats and of int32.

INT: the remainder of two int8 tensors indexes a table of every pair of values (GATHER,
exact); with a number operand it is a TABLE (0 LSB). int16 would need 2**32 entries.

Every target (FP, INT, Ethos-U55, Ethos-U85): the "remainder" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch

from etarm.testing.binary_checks import (
    TWO_TENSOR_SHAPES,
    assert_int16_two_tensor_lookup_stays_on_cpu,
    assert_two_tensor_lookup_exact,
    binary_cases,
    int32_division_operands,
    rank0_operands,
    scalar_operand_input,
)
from etarm.testing.unary_checks import assert_int8_tables_exact, assert_int16_lookups


def test_fp():
    cases = binary_cases({"remainder": torch.remainder})
    x = scalar_operand_input()
    cases.add("remainder_scalar", lambda a: torch.remainder(a, 1.5), x)
    cases.add("remainder_negative_scalar", lambda a: torch.remainder(a, -1.5), x)
    a, b = int32_division_operands()
    cases.add("int32 remainder", torch.remainder, a, b)
    cases.add("int32 remainder_scalar", lambda x: x % 4, a)
    cases.add("rank-0 remainder", lambda a, b: a % b, *rank0_operands())
    cases.assert_close_to_torch()


def test_int8_table_is_exact():
    assert_int8_tables_exact(rank4={"remainder": lambda x: torch.remainder(x, 1.5)})


def test_int16_exact_lookup():
    """A sawtooth: the interpolated TABLE cannot follow it."""
    assert_int16_lookups({"remainder": (lambda x: torch.remainder(x, 1.5), "GATHER", 0)})


@pytest.mark.parametrize("a_shape, b_shape", TWO_TENSOR_SHAPES.values(), ids=TWO_TENSOR_SHAPES)
def test_int8_remainder_of_two_tensors_is_exact(a_shape, b_shape):
    assert_two_tensor_lookup_exact(torch.remainder, a_shape, b_shape)


def test_int16_remainder_of_two_tensors_stays_on_cpu():
    """A table of every pair of int16 values would have 2**32 entries; the rest of the graph is still delegated."""
    assert_int16_two_tensor_lookup_stays_on_cpu(torch.remainder, "aten.remainder.Tensor")
