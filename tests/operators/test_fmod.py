"""fmod (the sign of the dividend), of floats and of int32.

INT: the fmod of two int8 tensors indexes a table of every pair of values (GATHER, exact);
with a number operand it is a TABLE (0 LSB).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "fmod" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch

from etarm.testing.binary_checks import (
    TWO_TENSOR_SHAPES,
    assert_two_tensor_lookup_exact,
    binary_cases,
    int32_division_operands,
    scalar_operand_input,
)
from etarm.testing.unary_checks import assert_int8_tables_exact


def test_fp():
    cases = binary_cases({"fmod": torch.fmod})
    cases.add("fmod_scalar", lambda a: torch.fmod(a, -1.5), scalar_operand_input())
    cases.add("int32 fmod", torch.fmod, *int32_division_operands())
    cases.assert_close_to_torch()


def test_int8_table_is_exact():
    assert_int8_tables_exact(rank4={"fmod": lambda x: torch.fmod(x, -1.25)})


@pytest.mark.parametrize("a_shape, b_shape", TWO_TENSOR_SHAPES.values(), ids=TWO_TENSOR_SHAPES)
def test_int8_fmod_of_two_tensors_is_exact(a_shape, b_shape):
    assert_two_tensor_lookup_exact(torch.fmod, a_shape, b_shape)
