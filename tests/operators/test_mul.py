"""mul (TOSA MUL), with broadcasting, scalars.

INT: 1 LSB, the rounding of the int32 rescales (python/etarm/testing/binary_checks.py).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "mul" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch

from etarm.testing.binary_checks import arithmetic_checks, arithmetic_operands, assert_scalar_operand_close
from etarm.testing.cpu_fallback import Fn
from etarm.testing.quantized_reference import assert_quantized_close
from etarm.testing.extension_floats import assert_extension_float_close

ARITHMETIC = arithmetic_checks(torch.mul, "MUL")


@pytest.mark.parametrize("check", ARITHMETIC.values(), ids=ARITHMETIC)
def test_arithmetic(check):
    check()


def test_scalar_operand():
    assert_scalar_operand_close(lambda x: x * -2.0)


def test_int8():
    """rank 1, products far from either input range."""
    assert_quantized_close(Fn(torch.mul), arithmetic_operands((5,), (5,), scales=[10.0, 0.01]))


def test_int8_scalar():
    """A number operand becomes a quantized constant."""
    x, _y = arithmetic_operands((2, 3, 4), (4,))
    run = assert_quantized_close(Fn(lambda x: x * -0.5), (x,))
    assert len(run.result.report["partitions"][0]["outputs"]) == 1


@pytest.mark.parametrize("target", ["TOSA-1.0+INT", "TOSA-1.0+INT+int16"], ids=["int8", "int16"])
def test_product_with_a_positive_constant_is_one_rescale(target):
    """x * c (c > 0 a number, or a one-value constant on either side) is the same single
    rounding as the int32 MUL path, without it; a negative c keeps the MUL."""
    scale = torch.tensor([[0.35]])
    fn = lambda x: (x * 0.25, scale * x, x * -0.5)  # noqa: E731
    run = assert_quantized_close(Fn(fn), arithmetic_operands((2, 3, 4)), target=target)
    ops = run.result.report["partitions"][0]["tosa_ops"]
    assert ops.count("MUL") == 1, ops


# --- bf16 (TOSA-1.0+FP+bf16) ---


def test_bf16_mul():
    gen = torch.Generator().manual_seed(15)
    a, b = ((torch.rand(4, 5, generator=gen) * 4 - 2).bfloat16() for _ in range(2))
    assert_extension_float_close(Fn(lambda x, y: x * y * 3), (a, b), torch.bfloat16, scale=12.0)
