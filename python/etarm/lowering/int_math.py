"""int32 helpers built only from ops TOSA 1.0 allows in both profiles (INTDIV, ADD, SUB,
MUL, logical shifts, CAST to/from float).

INTDIV truncates toward zero; torch's floor division and remainder round toward -inf.
The correction (subtract 1 from the quotient, add b to the remainder) applies where the
remainder is non-zero and its sign differs from b's. Comparisons on int32 are PRO-INT
only, so the signs come from LOGICAL_RIGHT_SHIFT by 31 (1 for negative, 0 otherwise).
The comparisons and SELECT below serve the FP profile when the INT profile is absent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import tosa_serializer as ts

if TYPE_CHECKING:  # int_math's functions take the Composer that calls them
    from etarm.lowering.compose import Composer


def _sign_bit(c: Composer, x):
    x = c.tensor(x)
    return c.binary(ts.Op.LOGICAL_RIGHT_SHIFT, x, c.const(31, x.dtype))


def floor_correction(c: Composer, remainder, divisor):
    """1 where ``remainder`` != 0 and its sign differs from ``divisor``'s, else 0 (int32)."""
    remainder_negative = _sign_bit(c, remainder)
    nonzero = c.add(remainder_negative, _sign_bit(c, c.sub(0, remainder)))
    sign_difference = c.sub(remainder_negative, _sign_bit(c, divisor))
    return c.mul(nonzero, c.mul(sign_difference, sign_difference))


def truncated_division(c: Composer, a, b):
    """(quotient, remainder) rounded toward zero."""
    quotient = c.intdiv(a, b)
    return quotient, c.sub(a, c.mul(quotient, b))


def floor_division(c: Composer, a, b):
    quotient, remainder = truncated_division(c, a, b)
    return c.sub(quotient, floor_correction(c, remainder, b))


def floor_remainder(c: Composer, a, b):
    _, remainder = truncated_division(c, a, b)
    b = c.tensor(b, remainder.dtype)
    return c.add(remainder, c.mul(floor_correction(c, remainder, b), b))


# --- int32 comparisons and selection without the INT profile --------------------------------
# TOSA 1.0 has EQUAL/GREATER/SELECT/MAXIMUM on int32 only in PRO-INT. With PRO-FP alone they
# are composed exactly: CAST int32->fp32 is monotonic, so fp32(a) > fp32(b) decides unless the
# two round to the same float, in which case |a - b| <= 256 and the int32 difference (taken
# only there, so it cannot overflow) decides.


def _exact_difference_as_float(c: Composer, a, b, same_float):
    """fp32(a - b) where ``same_float``, 0 elsewhere (no int32 overflow either way)."""
    keep = c.cast(c.select(same_float, 1.0, 0.0, dtype=ts.DType.FP32), a.dtype)
    return c.cast(c.sub(c.mul(a, keep), c.mul(b, keep)), ts.DType.FP32)


def compare_int32(c: Composer, op, a, b):
    """EQUAL / GREATER / GREATER_EQUAL of int32 tensors with PRO-FP ops only."""
    a = c.tensor(a)
    b = c.tensor(b, a.dtype)
    fa, fb = c.cast(a, ts.DType.FP32), c.cast(b, ts.DType.FP32)
    same_float = c.binary(ts.Op.EQUAL, fa, fb, ts.DType.BOOL)
    difference = _exact_difference_as_float(c, a, b, same_float)
    close = c.binary(op, difference, 0.0, ts.DType.BOOL)
    if op == ts.Op.EQUAL:
        return c.logical_and(same_float, close)
    return c.select(same_float, close, c.binary(op, fa, fb, ts.DType.BOOL))


def select_int32(c: Composer, condition, a, b):
    """a * k + b * (1 - k) with k = condition as 0/1: exact, and neither product can overflow."""
    a = c.tensor(a)
    keep = c.cast(c.select(condition, 1.0, 0.0, dtype=ts.DType.FP32), a.dtype)
    return c.add(c.mul(a, keep), c.mul(b, c.sub(1, keep)))
