"""sub (TOSA SUB), with broadcasting, scalars, alpha and reversed operands (rsub).

INT: 1 LSB, the rounding of the int32 rescales (python/etarm/testing/binary_checks.py).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "sub" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch

from etarm.testing.binary_checks import (
    arithmetic_checks,
    arithmetic_operands,
    assert_int8_scalar_and_alpha,
    assert_scalar_operand_close,
)
from etarm.testing.cpu_fallback import Fn
from etarm.testing.quantized_reference import assert_quantized_close
from etarm.testing.extension_floats import assert_extension_float_close, assert_needs_extension, assert_not_lowered

ARITHMETIC = arithmetic_checks(torch.sub, "SUB", alpha=-0.5)


@pytest.mark.parametrize("check", ARITHMETIC.values(), ids=ARITHMETIC)
def test_arithmetic(check):
    check()


@pytest.mark.parametrize("fn", [lambda x: x - 1.5, lambda x: 2.0 - x], ids=["sub", "rsub"])
def test_scalar_operand(fn):
    assert_scalar_operand_close(fn)


@pytest.mark.parametrize(
    "shapes, scales",
    [(((2, 3), (3,)), [3.0, 0.1]), (((2, 1, 3, 1, 4), (1, 5, 1, 2, 1)), [1.0, 1.0])],
    ids=["sub_bcast_rank", "sub_rank5"],
)
def test_int8(shapes, scales):
    assert_quantized_close(Fn(torch.sub), arithmetic_operands(*shapes, scales=scales))


def test_int8_scalar_and_alpha():
    """A number operand becomes a quantized constant; alpha folds into the operand's scale."""
    assert_int8_scalar_and_alpha(lambda x, y: (2.0 - x, torch.sub(x, y, alpha=-2.5)))


# --- bf16 (TOSA-1.0+FP+bf16); fp8 has no SUB ---


@pytest.mark.parametrize("alpha", [1, 2, -0.5])
def test_bf16_sub_with_alpha(alpha):
    gen = torch.Generator().manual_seed(13)
    a, b = ((torch.rand(2, 3, 4, generator=gen) * 4 - 2).bfloat16() for _ in range(2))
    assert_extension_float_close(Fn(lambda x, y: torch.sub(x, y, alpha=alpha)), (a, b), torch.bfloat16, scale=4.0)


def test_bf16_sub_needs_the_extension():
    a = torch.ones(2, 3).bfloat16()
    assert_needs_extension(Fn(lambda x, y: x - y), (a, a), torch.bfloat16, "aten.sub.Tensor")


@pytest.mark.parametrize("dtype", [torch.float8_e4m3fn, torch.float8_e5m2])
def test_fp8_sub_is_not_lowered(dtype):
    a = torch.ones(2, 3).to(dtype)
    assert_not_lowered(Fn(lambda x, y: x - y), (a, a), dtype, "aten.sub.Tensor")
