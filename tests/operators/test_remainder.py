"""remainder (torch's sign of the divisor), of floats and of int32.

INT: the remainder of two int8 tensors indexes a table of every pair of values (GATHER,
exact); with a number operand it is a TABLE (0 LSB). int16 would need 2**32 entries.

Every target (FP, INT, Ethos-U55, Ethos-U85): the "remainder" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch

from etarm.compiler import compile_model
from etarm.testing.binary_checks import (
    TWO_TENSOR_SHAPES,
    binary_cases,
    divisor,
    int32_division_operands,
    rank0_operands,
    scalar_operand_input,
    two_tensor_operands,
)
from etarm.testing.cpu_fallback import Fn
from etarm.testing.quantized_reference import assert_quantized_close
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
    run = assert_quantized_close(Fn(torch.remainder), two_tensor_operands(a_shape, b_shape), max_lsb=0)
    assert run.result.report["partitions"][0]["tosa_ops"].count("GATHER") == 1


def test_int16_remainder_of_two_tensors_stays_on_cpu():
    """A table of every pair of int16 values would have 2**32 entries; the rest of the graph is still delegated."""
    fn = Fn(lambda a, b: (torch.remainder(a, b), a * b))
    result = compile_model(fn, (torch.randn(4) * 3, divisor(4)), "TOSA-1.0+INT+int16", quantize=True)
    (reason,) = [e["reason"] for e in result.report["cpu_ops"] if e["op"] == "aten.remainder.Tensor"]
    assert (
        reason.startswith("aten.remainder.Tensor: ")
        and "table of every pair of int8 values" in reason
        and "int16" in reason
    )
    assert any("MUL" in p["tosa_ops"] for p in result.report["partitions"])
