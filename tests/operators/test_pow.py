"""pow: a tensor to a number, a number to a tensor, a tensor to a tensor; of floats and int32.

FP: integer exponents are products (any base sign); 0.5 / -0.5 use RSQRT; others POW.
INT: with a number operand a TABLE (exact); of two int8 tensors a table of every pair of
values (GATHER, exact), which int16 cannot have (2**32 entries).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "pow" rows of
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
)
from etarm.testing.cpu_fallback import cpu_reasons
from etarm.testing.unary_checks import assert_int8_tables_exact, assert_int16_lookups


def test_fp():
    cases = binary_cases(
        {
            "pow_integral_exponent": lambda a, b: torch.pow(a, torch.round(b)),
            "pow_positive_base": lambda a, b: torch.pow(torch.abs(a) + 0.1, b),
        }
    )
    # Constant exponents.
    x = torch.tensor(
        [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.3, 3.7, -3.7, float("inf"), -float("inf"), float("nan"), 1e-3]
    )
    for e in (0, 1, 2, 3, -1, -2, 5, 17, 0.5, -0.5, 1.5, -2.5, 0.3):
        cases.add(f"x**{e}", lambda t, e=e: t**e, x)
    cases.add("2**x", lambda t: 2.0**t, x)
    cases.add("0.5**x", lambda t: 0.5**t, x)
    cases.add("(-2)**x", lambda t: (-2.0) ** t, x)
    # Every pair of edge values: 0, +-1, +-inf, NaN, negative bases with odd/even/fractional exponents.
    values = torch.tensor(
        [0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 3.0, -3.0, 2.5, float("inf"), -float("inf"), float("nan")]
    )
    cases.add("pow of edge values", torch.pow, values.reshape(-1, 1), values.reshape(1, -1))
    a, _b = int32_division_operands()
    cases.add("int32 pow_0", lambda x: x**0, a)
    cases.add("int32 pow_3", lambda x: x**3, a)
    cases.add("int32 pow_7_wraps", lambda x: x**7, a)
    cases.add("rank-0 pow", lambda a, b: a**b, *rank0_operands())
    cases.assert_close_to_torch()


def test_large_integer_exponent_stays_on_cpu():
    i = torch.tensor([2, 3], dtype=torch.int32)
    reasons = cpu_reasons(lambda t: torch.pow(t, 20), (i,))
    assert any("integer powers need a constant exponent in [0, 16], not 20" in r for r in reasons), reasons


def test_int8_table_is_exact():
    assert_int8_tables_exact(
        rank4={"square": lambda x: x**2, "cube": lambda x: torch.pow(x, 3), "exp2": lambda x: 2.0**x},
        positive={"pow_half": lambda x: x**0.5, "pow_negative": lambda x: torch.pow(x, -1.5)},
    )


def test_int16_lookups():
    """x**2 is smooth (the interpolated TABLE, 2 LSB); 2**x (pow.Scalar: the tensor is the
    exponent) is not, in this calibration (the exact GATHER)."""
    assert_int16_lookups({"square": (lambda x: x**2, "TABLE", 2), "exp2": (lambda x: 2.0**x, "GATHER", 0)})


def _pow_of_positive_base(a, b):
    """abs + 0.5 is quantized on its own: pow of two int8 tensors."""
    return torch.pow(a.abs() + 0.5, b)


@pytest.mark.parametrize("a_shape, b_shape", TWO_TENSOR_SHAPES.values(), ids=TWO_TENSOR_SHAPES)
def test_int8_pow_of_two_tensors_is_exact(a_shape, b_shape):
    assert_two_tensor_lookup_exact(_pow_of_positive_base, a_shape, b_shape)


def test_int16_pow_of_two_tensors_stays_on_cpu():
    """A table of every pair of int16 values would have 2**32 entries; the rest of the graph is still delegated."""
    assert_int16_two_tensor_lookup_stays_on_cpu(_pow_of_positive_base, "aten.pow.Tensor_Tensor")
