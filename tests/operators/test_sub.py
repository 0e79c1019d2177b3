"""sub (TOSA SUB), with broadcasting, scalars, alpha and reversed operands (rsub).

INT: 1 LSB, the rounding of the int32 rescales (python/etarm/testing/binary_checks.py).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "sub" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch

from etarm.testing.binary_checks import (
    ARITHMETIC_SHAPES,
    arithmetic_operands,
    assert_a16w8_arithmetic,
    assert_alpha_close,
    assert_broadcast_close,
    assert_int8_scalar_and_alpha,
    assert_rank0_close,
)
from etarm.testing.cpu_fallback import Fn
from etarm.testing.quantized_reference import assert_quantized_close
from etarm.testing.tosa_reference import assert_close_to_torch


@pytest.mark.parametrize("shapes", ARITHMETIC_SHAPES, ids=str)
def test_broadcast(shapes):
    assert_broadcast_close(torch.sub, shapes)


def test_rank0_operands():
    assert_rank0_close(torch.sub)


def test_a16w8():
    assert_a16w8_arithmetic(torch.sub, "SUB")


def test_alpha():
    assert_alpha_close(torch.sub, -0.5)


@pytest.mark.parametrize("fn", [lambda x: x - 1.5, lambda x: 2.0 - x], ids=["sub", "rsub"])
def test_scalar_operand(fn):
    assert_close_to_torch(Fn(fn), (torch.randn(2, 3, 4),))


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
