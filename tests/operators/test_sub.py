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
