"""int32 fixed-point arithmetic for the whole-op INT lowerings (softmax, norms, attention).

Everything here uses only TOSA ops that Ethos-U (Vela, U55 and U85) runs: RESCALE, int8
TABLE, int16 TABLE (int16 extension), ADD/SUB/MUL/MINIMUM/MAXIMUM/CLZ and both shifts on
int32. No INTDIV, no floats. Notation: "Qk" is an int32 holding ``value * 2**k``.

- ``normalize``/``reciprocal``/``rsqrt``: CLZ brings a positive int32 to [2**30, 2**31)
  (an even shift for rsqrt); a 256-entry int8 TABLE on its top bits gives a first guess
  with ~2**-8 relative error and Newton steps (MUL with a rounding shift) refine it. Two
  steps already reach 2**-28 for 1/x; three are used, so the result is exact to the last
  bits of Q29 whatever the table rounding. Where the lowering may use int16 internally
  (``TosaGraph.int16_internals``: the int16 extension, not Ethos-U55/U65) the guess comes
  from an interpolated int16 TABLE instead (~2**-13.5) and two Newton steps fewer do
  (at least one: ~2**-25): each step is several NPU operations on a row's values.
- ``exp_lookup``: ``exp(-d * unit)`` for integer distances d >= 0, one lookup per byte
  of d (exp of a sum is the product of exps): each byte either through a pair of int8
  TABLEs (high and low byte of a 16-bit value, INT profile) or through one int16 TABLE
  read at a fraction of 1, whose interpolation ``127 * T[2j] + T[2j + 1]`` returns a
  22-bit entry exactly (int16 extension).
- ``exp16_lookup``: ``exp`` of an int16 position from ONE int16 TABLE, interpolated
  between its 513 entries: absolute precision only (2**-15 of exp(0)), which is what a
  softmax over few values needs, at a fraction of the operations (int16 extension).
"""

from __future__ import annotations

import math
from typing import Callable, Sequence

import numpy as np
import tosa_serializer as ts

from etarm.errors import EtarmError
from etarm.lowering.quantized import rescale
from etarm.tosa_ir.graph import TosaGraph, TosaTensor

I8, I16, I32 = ts.DType.INT8, ts.DType.INT16, ts.DType.INT32
INT32_MAX = 2**31 - 1


# --- elementwise int32 ops (equal-rank broadcasting) -------------------------------------------
def _shape(a: TosaTensor, b: TosaTensor) -> tuple[int, ...]:
    return tuple(max(x, y) for x, y in zip(a.shape, b.shape))


def const(graph: TosaGraph, value: int | Sequence[int] | np.ndarray, rank: int) -> TosaTensor:
    """An int32 constant broadcastable against rank-``rank`` tensors (a scalar or a full array)."""
    array = np.asarray(value, dtype=np.int64)
    if array.ndim == 0:
        array = array.reshape((1,) * max(rank, 1))
    if array.min() < -(2**31) or array.max() > INT32_MAX:
        raise EtarmError(f"internal: int32 constant out of range ({array.min()}..{array.max()})")
    return graph.const(array.astype(np.int32), I32, stem="fixed")


def _operand(graph: TosaGraph, value, rank: int) -> TosaTensor:
    return value if isinstance(value, TosaTensor) else const(graph, value, rank)


def binary(graph: TosaGraph, op, a: TosaTensor, b) -> TosaTensor:
    """``op(a, b)`` on int32; ``b`` may be a number."""
    return graph.binary(op, a, _operand(graph, b, a.rank), I32)


def add(graph: TosaGraph, a: TosaTensor, b) -> TosaTensor:
    return binary(graph, ts.Op.ADD, a, b)


def sub(graph: TosaGraph, a, b) -> TosaTensor:
    """``a - b``; ``a`` may be a Python int (then ``b`` gives the rank)."""
    if not isinstance(a, TosaTensor):
        a = const(graph, a, b.rank)
    return binary(graph, ts.Op.SUB, a, b)


def minimum(graph: TosaGraph, a: TosaTensor, b) -> TosaTensor:
    b = _operand(graph, b, a.rank)
    return graph.binary(ts.Op.MINIMUM, a, b, I32, ts.NanPropagationMode.PROPAGATE)


def maximum(graph: TosaGraph, a: TosaTensor, b) -> TosaTensor:
    b = _operand(graph, b, a.rank)
    return graph.binary(ts.Op.MAXIMUM, a, b, I32, ts.NanPropagationMode.PROPAGATE)


# Vela gives TOSA MUL the NPUs' double rounding, which adds 2**30 (toward the product's sign)
# before a shift above 31: such a MUL would not round as TOSA says on Ethos-U.
MUL_SHIFT_MAX = 31


def mul(graph: TosaGraph, a: TosaTensor, b, shift: int = 0) -> TosaTensor:
    """``round(a * b / 2**shift)`` with a 64-bit product (the result must fit int32). A shift
    above MUL_SHIFT_MAX rounds ``b`` by the excess first, so ``b`` should be the operand with
    bits to spare (a reciprocal or multiplier rather than the values it scales)."""
    if not 0 <= shift <= 63:
        raise EtarmError(f"internal: MUL shift {shift} out of range")
    excess = shift - MUL_SHIFT_MAX
    if excess > 0:
        if isinstance(b, TosaTensor):
            b = shift_right(graph, b, excess)
        else:
            b = (np.asarray(b, dtype=np.int64) + (1 << (excess - 1))) >> excess
        shift = MUL_SHIFT_MAX
    b = _operand(graph, b, a.rank)
    shift_tensor = graph.const([shift], I8, stem="shift")
    return graph.emit(ts.Op.MUL, [a, b, shift_tensor], _shape(a, b), I32)


def shift_left(graph: TosaGraph, a: TosaTensor, amount) -> TosaTensor:
    return binary(graph, ts.Op.LOGICAL_LEFT_SHIFT, a, amount)


def shift_right(graph: TosaGraph, a: TosaTensor, amount, rounding: bool = True) -> TosaTensor:
    """Arithmetic shift right, rounding half up when ``rounding``; ``amount`` in 0..31."""
    amount = _operand(graph, amount, a.rank)
    return graph.binary(ts.Op.ARITHMETIC_RIGHT_SHIFT, a, amount, I32, rounding)


def absolute(graph: TosaGraph, a: TosaTensor) -> TosaTensor:
    return graph.emit(ts.Op.ABS, [a], a.shape, I32)


def count_leading_zeros(graph: TosaGraph, a: TosaTensor) -> TosaTensor:
    return graph.emit(ts.Op.CLZ, [a], a.shape, I32)


def widen(graph: TosaGraph, tensor: TosaTensor, zero_point: int = 0) -> TosaTensor:
    """An int8/int16 tensor as int32, ``zero_point`` removed."""
    return rescale(graph, tensor, 1.0, I32, input_zp=zero_point)


def widened(graph: TosaGraph, tensor: TosaTensor) -> TosaTensor:
    """An int8/int16 tensor as int32 by CAST: one NPU operation where Vela splits a widening
    RESCALE in two (an ADD to int32, then a MUL)."""
    return graph.emit(ts.Op.CAST, [tensor], tensor.shape, I32)


def byte_index(graph: TosaGraph, byte: TosaTensor) -> TosaTensor:
    """int32 values 0..255 as the int8 TABLE index (value - 128)."""
    return rescale(graph, byte, 1.0, I8, output_zp=-128)


# --- table lookups ----------------------------------------------------------------------------
def int8_table(graph: TosaGraph, index: TosaTensor, entries: np.ndarray) -> TosaTensor:
    """TABLE of an int8 tensor; ``entries[i]`` answers the index value ``i - 128``."""
    values = graph.const(np.asarray(entries).astype(np.int8), I8, stem="table")
    return graph.emit(ts.Op.TABLE, [index, values], index.shape, I8)


# wide_lookup's largest value with int8 tables (its high byte, rounded, is at most 255).
WIDE_INT8_MAX = 255 * 256 + 127


def wide_lookup(
    graph: TosaGraph, byte: TosaTensor, values: np.ndarray, int16_tables: bool, index: TosaTensor | None = None
) -> TosaTensor:
    """int32 ``values[byte]`` for int32 bytes 0..255 and integer ``values`` in
    [0, WIDE_INT8_MAX] (int8 tables) or [0, 127 * 2**15) (int16 tables); ``index``:
    ``byte_index(byte)`` if already computed (int8 tables).

    With int8 tables a value is ``256 high + low``: high = round(value / 256) stored
    offset by -128, low in -128..127 stored as is, so it widens by one CAST where a
    RESCALE removing a zero point is two NPU operations."""
    values = np.asarray(values, dtype=np.int64)
    if int16_tables:
        if values.min() < 0 or values.max() > 127 * 32767 + 126:
            raise EtarmError("internal: int16 wide lookup value out of range")
        entries = np.zeros(513, np.int64)
        entries[0:512:2], entries[1:512:2] = np.divmod(values, 127)
        table = graph.const(entries.astype(np.int16), I16, stem="table")
        # Input 256 j - 32767 is index 2j at fraction 1: 128 T[2j] + (T[2j+1] - T[2j]).
        position = graph.emit(ts.Op.CAST, [add(graph, shift_left(graph, byte, 8), -32767)], byte.shape, I16)
        return graph.emit(ts.Op.TABLE, [position, table], byte.shape, I32)
    if values.min() < 0 or values.max() > WIDE_INT8_MAX:
        raise EtarmError("internal: int8 wide lookup value out of range")
    index = byte_index(graph, byte) if index is None else index
    high = (values + 128) >> 8
    high_bytes = int8_table(graph, index, high - 128)
    low_bytes = int8_table(graph, index, values - 256 * high)
    return add(graph, rescale(graph, high_bytes, 256.0, I32, input_zp=-128), widened(graph, low_bytes))


# --- reciprocal and inverse square root -----------------------------------------------------------
def _guess_table(fn: Callable[[np.ndarray], np.ndarray], low: float, high: float) -> np.ndarray:
    """int8 entries of ``fn(x)`` for x = (i + 128) / 256 (the top byte of a Q31 value in
    [2**29, 2**31)), encoded affinely so [low, high] spans -127..127."""
    x = np.maximum(np.arange(256, dtype=np.float64), 64.0) / 256.0
    encoded = np.round((fn(x) - (low + high) / 2) * 254.0 / (high - low))
    return np.clip(encoded, -127, 127).astype(np.int64)


# An int16 TABLE's first guess is good to ~2**-13.5 (vs 2**-8 from int8): two Newton steps fewer.
_WIDE_GUESS_STEPS_SAVED = 2


def _guess_steps(graph: TosaGraph, steps: int) -> int:
    return max(1, steps - _WIDE_GUESS_STEPS_SAVED) if graph.int16_internals else steps


def _first_guess(graph: TosaGraph, normalized: TosaTensor, fn, low: float, high: float) -> TosaTensor:
    """Q29 ``fn(normalized / 2**31)`` (fn in [low, high] within [1, 2]) for normalized in
    [2**29, 2**31): from an int16 TABLE of 513 entries where the lowering may use one
    (interpolated: ~2**-13.5 relative, the entries' scale 1 - 2**-14 included), else to
    ~2**-8 from an int8 TABLE on the top 8 bits."""
    if graph.int16_internals:
        # Position (normalized - 2**30) / 2**15 in [-16384, 32767]: x = position / 2**16 + 1/2.
        position = rescale(graph, sub(graph, normalized, 1 << 30), 2.0**-15, I16)  # saturates at 32767
        x = np.maximum(np.arange(513, dtype=np.float64) * 128.0 - 32768.0, -16384.0) / 2.0**16 + 0.5
        entries = np.round(fn(x) * (2**14 - 1)).astype(np.int16)  # fn <= 2 fits int16
        table = graph.const(entries, I16, stem="table")
        guess = graph.emit(ts.Op.TABLE, [position, table], position.shape, I32)  # ~ fn 2**21
        return shift_left(graph, guess, 8)
    index = rescale(graph, normalized, 2.0**-23, I8, output_zp=-128)  # saturates at 127
    guess = int8_table(graph, index, _guess_table(fn, low, high))
    step = rescale(graph, guess, (high - low) * 2.0**29 / 254.0, I32)
    return add(graph, step, round((low + high) / 2 * 2**29))


def normalize(graph: TosaGraph, value: TosaTensor) -> tuple[TosaTensor, TosaTensor]:
    """(value << (n - 1), n) with n = CLZ(value): for value > 0 the first lies in [2**30, 2**31)."""
    zeros = count_leading_zeros(graph, value)
    return shift_left(graph, value, sub(graph, zeros, 1)), zeros


def reciprocal(graph: TosaGraph, value: TosaTensor, steps: int = 3) -> tuple[TosaTensor, TosaTensor]:
    """(y, n) with ``1 / value = y * 2**(n - 61)``, y in Q29 within (2**29, 2**30], value > 0."""
    normalized, zeros = normalize(graph, value)  # x = normalized / 2**31 in [0.5, 1)
    y = _first_guess(graph, normalized, lambda x: 1.0 / x, 1.0, 2.0)
    for _ in range(_guess_steps(graph, steps)):  # y <- y (2 - x y)
        xy = mul(graph, normalized, y, 31)
        y = mul(graph, y, sub(graph, 1 << 30, xy), 29)
    return y, zeros


def _rsqrt_parts(graph: TosaGraph, value: TosaTensor, steps: int):
    half = shift_right(graph, sub(graph, count_leading_zeros(graph, value), 1), 1, rounding=False)
    normalized = shift_left(graph, value, shift_left(graph, half, 1))  # z = normalized / 2**31 in [0.25, 1)
    r = _first_guess(graph, normalized, lambda z: 1.0 / np.sqrt(z), 1.0, 2.0)
    for _ in range(_guess_steps(graph, steps)):  # r <- r (3 - z r^2) / 2
        square = mul(graph, r, r, 30)  # Q28, r^2 <= 4
        zr2 = mul(graph, normalized, square, 31)  # Q28
        r = mul(graph, r, sub(graph, 3 << 28, zr2), 29)
    return r, half, normalized


def rsqrt(graph: TosaGraph, value: TosaTensor, steps: int = 3) -> tuple[TosaTensor, TosaTensor]:
    """(r, half) with ``value**-0.5 = r * 2**(half - 29 - 15.5)``, r in Q29, value > 0.

    The value is shifted left by ``2 * half`` into [2**29, 2**31) (an even shift keeps the
    square root exact), so ``half = (CLZ(value) - 1) // 2``.
    """
    r, half, _ = _rsqrt_parts(graph, value, steps)
    return r, half


def square_root(graph: TosaGraph, value: TosaTensor, steps: int = 3) -> tuple[TosaTensor, TosaTensor]:
    """(s, half) with ``sqrt(value) = s * 2**(15.5 - 29 - half)``, s in Q29, value > 0.

    ``sqrt(z) = z * rsqrt(z)`` on the normalized z keeps all 29 bits for small values too.
    """
    r, half, normalized = _rsqrt_parts(graph, value, steps)
    return mul(graph, normalized, r, 31), half


# --- exp of integer distances -----------------------------------------------------------------
def exp_precision_bits(int16_tables: bool) -> int:
    """Mantissa bits of one exp lookup: int8 TABLE pairs give 15, int16 TABLEs 21."""
    return 21 if int16_tables else 15


EXP_BITS = 30  # exp_lookup's results are Q30: exp(0) = 2**30
# Distance grids exp_lookup keeps at most (as bits over the span exp covers): 3 bytes with
# int16 tables, 2 with the int8 ones (their 15-bit mantissas need no finer grid).
EXP_GRID_BITS, EXP_GRID_BITS_INT8_TABLES = 24, 16


# exp16_lookup: results are 2**21 (1 + 2**-9) exp(x), so exp(0) is at least 2**21 whatever
# the rounding; entries 2**14 (1 + 2**-9) exp(x) fit int16 up to x = ln 2 - 2**-9.
EXP16_BITS = 21
EXP16_GAIN = 1.0 + 2.0**-9
EXP16_ERROR = 0.5 / (2**14 * EXP16_GAIN)  # an entry's rounding, as a fraction of exp(0)
# How far below 0 a full int16 range reaches, so that exp at its lowest input is exactly 0.
EXP16_SPAN = math.log(2**15 * EXP16_GAIN) + 0.125


def exp16_lookup(graph: TosaGraph, position: TosaTensor, step: float, zero_at: float) -> TosaTensor:
    """int32 ``2**21 EXP16_GAIN exp((position - zero_at) * step)`` for an int16 ``position``
    (at most zero_at + 128), from one int16 TABLE.

    Entry j holds the value at input 128 j - 32768, rounded (EXP16_ERROR of exp(0));
    TOSA interpolates linearly between neighbours, a relative error of at most
    (128 step)**2 / 8 (none where positions fall on entries).
    """
    inputs = np.arange(513, dtype=np.float64) * 128.0 - 32768.0
    entries = np.round(2.0**14 * EXP16_GAIN * np.exp(np.minimum(inputs - zero_at, 128.0) * step))
    if entries.max() > 32767:
        raise EtarmError("internal: exp16_lookup step too large")
    table = graph.const(entries.astype(np.int16), I16, stem="table")
    return graph.emit(ts.Op.TABLE, [position, table], position.shape, I32)


def _mantissas_and_exponents(values: np.ndarray, bits: int) -> tuple[np.ndarray, np.ndarray]:
    """values in (0, 1] as ``mantissa * 2**-(bits + exponent)`` with mantissa in
    [2**(bits - 1), 2**bits] and exponent 0..31 (values below 2**-32 become 0)."""
    exponents = np.floor(-np.log2(np.maximum(values, 2.0**-200)))
    exponents = np.clip(exponents, 0, 31)
    mantissas = np.round(values * 2.0 ** (exponents + bits))
    mantissas[values < 2.0**-32] = 0
    return mantissas.astype(np.int64), exponents.astype(np.int64)


def exp_lookup(
    graph: TosaGraph, distance: TosaTensor, unit: float, max_distance: int, int16_tables: bool, result_bits: int = 30
) -> TosaTensor:
    """Q``result_bits`` ``exp(-distance * unit)`` for int32 distances in [0, max_distance];
    exp(0) is exactly ``2**result_bits`` (``result_bits`` from the mantissa bits to 30).

    The distance is split in bytes, exp of each byte's share looked up as a mantissa
    (``wide_lookup``: 15 bits from int8 TABLEs, 21 from int16 ones) and an exponent (an
    int8 TABLE), like a float: so tiny values keep their relative precision, which
    matters when a long row of them adds up. Mantissas multiply with rounding shifts,
    the exponents add, and one shift applies them. Distances past where exp falls below
    2**-(result_bits + 2) (0 on the result's grid) are clamped first, and grids finer than
    2**-24 of that span coarsened (at most 3 bytes; the rounding costs < 2**-19 relative).
    With int8 tables (15-bit mantissas, int8 outputs) the grid is coarsened to 2**-16 of
    the span instead: 2 bytes, a rounding of < 2**-12.5 relative, and a third fewer int32
    operations (transformer block: ethos-u55-128 71192 -> 62100 cycles, ethos-u85-256
    31344 -> 28446; 6 of its 256 outputs, near ties, move by one step). Their top byte's
    index saturates at 255: when exp is 0 there, no clamp is needed.
    """
    bits = exp_precision_bits(int16_tables)
    if not bits <= result_bits <= EXP_BITS:
        raise EtarmError(f"internal: exp_lookup result bits {result_bits} out of range")
    grid_bits = EXP_GRID_BITS if int16_tables else EXP_GRID_BITS_INT8_TABLES
    negligible = math.ceil((result_bits + 2) * math.log(2) / unit)  # exp below 2**-(result_bits + 2): 0 on the grid
    clamp = max_distance > negligible
    if clamp:
        max_distance = negligible
    extra = 0
    if max_distance >= 1 << grid_bits:  # a finer grid than 2**-grid_bits of the range exp spans: coarsen it
        extra = math.ceil(math.log2(max_distance + 1)) - grid_bits
        max_distance = (max_distance + (1 << (extra - 1))) >> extra
        unit *= 2.0**extra
    byte_count = max(1, math.ceil(math.log2(max_distance + 1) / 8))
    top = np.exp(-255.0 * unit * 256.0 ** (byte_count - 1))
    if clamp and (int16_tables or _mantissas_and_exponents(np.array([top]), bits)[0][0] != 0):
        distance = minimum(graph, distance, negligible)
    if extra:
        distance = shift_right(graph, distance, extra)
    mantissa = exponent = None
    exponent_bytes = 0
    remaining = distance
    for position in range(byte_count):
        if position == byte_count - 1:
            byte = remaining
        else:
            upper = shift_right(graph, remaining, 8, rounding=False)
            byte = sub(graph, remaining, shift_left(graph, upper, 8))
            remaining = upper
        real = np.exp(-np.arange(256, dtype=np.float64) * unit * 256.0**position)
        mantissas, exponents = _mantissas_and_exponents(real, bits)
        index = None
        if not int16_tables:  # one index for both lookups
            if position and position == byte_count - 1:
                # A shift of its own: Vela on Ethos-U85 chains a RESCALE into the op before
                # only if it is that op's one consumer (transformer block: -2032 cycles on
                # ethos-u85-256 with the split below, +0 on ethos-u55-128).
                byte = shift_right(graph, distance, 8 * position, rounding=False)
            index = byte_index(graph, byte)
        factor = wide_lookup(graph, byte, mantissas, int16_tables, index)
        if mantissa is None:
            mantissa = factor
        else:  # the last product lands on the result's grid (Q(result_bits) before exponents)
            last = position == byte_count - 1
            mantissa = mul(graph, mantissa, factor, 2 * bits - result_bits if last else bits)
        if exponents.any():
            # exponents 0..31 are int8 entries as they are: a CAST widens them
            shift = widened(graph, int8_table(graph, index if index is not None else byte_index(graph, byte), exponents))
            exponent = shift if exponent is None else add(graph, exponent, shift)
            exponent_bytes += 1
    result = mantissa
    if byte_count == 1 and result_bits > bits:
        result = shift_left(graph, mantissa, result_bits - bits)
    if exponent is not None:
        if exponent_bytes > 1:
            exponent = minimum(graph, exponent, 31)
        result = shift_right(graph, result, exponent)
    return result
