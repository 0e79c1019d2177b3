"""Softmax and log-softmax on integers (TOSA INT), shared by softmax, log_softmax and attention;
``SoftmaxFamilyVisitor``, the visitor _softmax and _log_softmax share (float and INT).

Design: the op is lowered WHOLE in int32 rather than split at quantization time into
amax/sub/exp/sum/reciprocal/mul ops that each round their result to 8 (or 16) bits.
Splitting would quantize exp(x - max), its row sum and the reciprocal separately: with
int8 the sum alone has ~1% error before the division, so the split model is several
output steps from the float softmax (and needs -inf-free inputs for masking). Whole,
the only rounding that matters is the final one into the output, so the result is
within ~1 LSB of ``quantize(softmax(dequantize(x)))`` on both profiles, with ops Vela
supports on Ethos-U55 and U85 (see fixed_point.py):

1. distance ``d = max(x) - x >= 0`` in integer steps (REDUCE_MAX on the int8/int16
   input, SUB on int32);
2. ``e = 2**30 exp(-d * scale)`` from byte-wise lookups (fixed_point.exp_lookup), each
   a mantissa (15 bits from int8 TABLE pairs, 21 from int16 TABLEs) and an exponent, so
   tiny terms keep their relative precision; exp(0) = 2**30 exactly;
3. the row sum S on a grid of 2**(30 - log2 N) per term, plus a second sum of the bits
   below that grid, so S fits int32 and still counts a long tail of tiny terms (short
   rows, where that tail is below the mantissas' rounding, look e up on the grid and
   take one sum);
4. ``1 / S`` by CLZ normalization, an int8 TABLE guess and Newton steps (Q29);
5. ``p = e / S`` in Q30 by one MUL and a per-row rounding shift (for rows of up to
   2**7 values the shift goes into 1/S and the MUL rounds once), then ONE RESCALE into
   the output; log-softmax instead adds ``-d * scale - ln(S / 2**b)`` in int32, with
   ln of the normalized S interpolated between 257 table points (~2**-19).

int8 rows short enough (``_short_row_exponentials``; attention: integer_attention.py)
look exps up with absolute precision instead, each within ~2**-15 of exp(0), from one
int16 TABLE (int16 extension, not Ethos-U55/U65) or a pair of int8 TABLEs: a p then
errs by at most (N + 1) such steps, which they keep under half an output step
(TABLE_BUDGET). Measured on a 4x8x8 softmax: ethos-u55-128 11418 -> 8174 cycles,
ethos-u85-256 7782 -> 4669 (these and the int16 reciprocal guess).

Error bound (output LSB): 0.5 for the final rounding; the mantissas' rounding (2**-16
or 2**-22 relative, shared by equal distances) moves p by at most 2 (bytes) x that,
< 0.01 LSB for int8 and < 0.03 for int16; the grid of the numerators adds
2**(log2 N - 31) of exp(0), < 0.02 int16 LSB up to N = 1024. Attention's int32 scores
with int8 tables take distances on a grid of 2**-16 of the span exp covers (2 bytes;
fixed_point.exp_lookup): 2**-12.5 relative, shared by equal distances. Rows may hold up to
``MAX_ROW`` values (the int16 bound grows with N past ~4096).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import torch
import tosa_serializer as ts

from etarm.lowering import fixed_point as fx
from etarm.lowering import tensor_math as tm
from etarm.lowering.quantized import FloatAndQuantizedVisitor, input_qparams, output_qparams, rescale
from etarm.lowering.reduction import at_least_1d, dims_reason, reduce, reduced_axes, softmax
from etarm.tosa_ir.graph import TosaGraph, TosaTensor
from etarm.tosa_ir.mapping import tosa_dtype
from etarm.tosa_ir.quant_params import QuantParams

LN2 = math.log(2.0)
# probabilities() folds the per-row shift into the row's inverse when it spans at most this
# many bits (rows of up to 2**7 values): one int32 op per value less.
_ROW_SHIFT_BITS = 8
# Rows longer than this could overflow the int32 row sums (and the distances of int16 inputs).
MAX_ROW = 1 << 16


@dataclasses.dataclass
class Exponentials:
    values: TosaTensor  # int32, exp(-distance * unit) * 2**bits
    total: TosaTensor  # their sum along the axis (kept as size 1)
    bits: int
    row: int  # elements summed


def exponentials(
    graph: TosaGraph,
    distance: TosaTensor,
    axis: int,
    unit: float,
    max_distance: int,
    int16_tables: bool,
    gate: TosaTensor | None = None,
) -> Exponentials:
    """exp(-distance * unit) on an int32 grid whose sum along ``axis`` fits int32.

    The values may hold at most 2**(30 - log2(row)) each. When the lookup is finer, the
    sum also adds up the bits below that grid (a second REDUCE_SUM): otherwise a long
    row of tiny values, each rounded to 0, would be missing from a peaked row's total.
    ``gate`` (0 or 1, broadcast) zeroes whole rows (attention queries with every key masked).
    """
    row = distance.shape[axis]
    bits = min(fx.EXP_BITS, 30 - math.ceil(math.log2(row)))
    # Rounded to the sum's grid, a row's values miss at most row * 2**-(bits + 1) of the
    # total (>= 1, exp(0)): below the mantissas' own rounding in short rows, which then
    # look their values up on that grid directly and take one sum.
    coarse_enough = row * 2 ** math.ceil(math.log2(row)) <= 2 ** (30 - fx.exp_precision_bits(int16_tables))
    values = fx.exp_lookup(graph, distance, unit, max_distance, int16_tables, bits if coarse_enough else fx.EXP_BITS)
    if gate is not None:
        values = fx.mul(graph, values, gate)
    if bits == fx.EXP_BITS or coarse_enough:
        return Exponentials(values, reduce(graph, ts.Op.REDUCE_SUM, values, [axis]), bits, row)
    drop = fx.EXP_BITS - bits
    coarse = fx.shift_right(graph, values, drop)
    remainder = fx.sub(graph, values, fx.shift_left(graph, coarse, drop))  # |.| <= 2**(drop - 1)
    total = reduce(graph, ts.Op.REDUCE_SUM, coarse, [axis])
    carried = fx.shift_right(graph, reduce(graph, ts.Op.REDUCE_SUM, remainder, [axis]), drop)
    return Exponentials(coarse, fx.add(graph, total, carried), bits, row)


# Rows that exps from one int16 TABLE (fx.exp16_lookup, absolute precision) may take:
# their int32 sum stays below 2**29; and the worst-case error they may add before the
# final rounding, in output steps (so the result stays within 1 step of the reference).
TABLE_MAX_ROW = 255
TABLE_BUDGET = 0.5


def table_exponentials(
    graph: TosaGraph, position: TosaTensor, axis: int, step: float, zero_at: float, gate: TosaTensor | None = None
) -> Exponentials:
    """``exponentials`` of ``(position - zero_at) * step`` for an int16 ``position`` (at
    most zero_at, the row's maximum there) from one int16 TABLE: a few operations where
    exp_lookup takes a dozen int32 ones, for rows whose error bound (``table_error``) allows."""
    values = fx.exp16_lookup(graph, position, step, zero_at)
    if gate is not None:
        values = fx.mul(graph, values, gate)
    return Exponentials(values, reduce(graph, ts.Op.REDUCE_SUM, values, [axis]), fx.EXP16_BITS, position.shape[axis])


def table_error(row: int, relative: float) -> float:
    """Bound on ``sum |p - exact p|`` over a row of probabilities from ``table_exponentials``
    whose values also carry a ``relative`` error each (distance grid, interpolation): each
    entry's rounding (EXP16_ERROR of exp(0) <= the row's total) counts once in its own p and
    once through the total; a relative error counts twice (numerator and total)."""
    return 2 * row * fx.EXP16_ERROR + 2 * relative


def probabilities(graph: TosaGraph, exps: Exponentials, may_be_empty: bool = False, fraction: int = 30) -> TosaTensor:
    """Q``fraction`` (<= 30) ``values / total``; ``may_be_empty``: rows whose total is 0
    give 0 (masked rows)."""
    total = fx.maximum(graph, exps.total, 1) if may_be_empty else exps.total
    inverse, zeros = fx.reciprocal(graph, total)  # 1/total = inverse * 2**(zeros - 61)
    most = 31 - exps.bits  # zeros <= most (total >= 2**bits; masked rows: 31)
    # Values stay below 2**(bits + 1), so a row's total has at most bits + 1 + log2(row)
    # bits and zeros spans at most this many values:
    spread = 1 + math.ceil(math.log2(exps.row)) if exps.row > 1 else 1
    if spread <= _ROW_SHIFT_BITS:
        # Short rows: the per-row shift goes into the inverse (a per-row op, keeping >= 22
        # of its 29 bits) and one MUL with a static shift rounds once: 1/total = scaled * 2**(most - 61).
        amount = fx.sub(graph, most, zeros)
        if may_be_empty:
            amount = fx.maximum(graph, amount, 0)
        scaled = fx.shift_right(graph, inverse, amount)
        return fx.mul(graph, exps.values, scaled, 30 + exps.bits - fraction)
    product = fx.mul(graph, exps.values, inverse, exps.bits)  # < 2**30: values <= 2**bits
    # p * 2**30 = product * 2**(bits + zeros - 31); total >= 2**bits keeps the shift >= 0.
    shift = fx.sub(graph, 31 - exps.bits + 30 - fraction, zeros)
    if may_be_empty:
        shift = fx.maximum(graph, shift, 0)
    return fx.shift_right(graph, product, shift)


def negative_log(graph: TosaGraph, normalized: TosaTensor, int16_tables: bool) -> tuple[TosaTensor, int]:
    """(L, q) with ``L = -ln(normalized / 2**31) * 2**q`` for normalized in [2**30, 2**31).

    The top 9 bits j (256..511) pick a segment of x = j / 512 and the 22 bits below
    interpolate linearly (error <= 2**-19): -ln at the segment start and the drop to the
    next come from tables, Q22 through int16 TABLEs or Q16 through int8 ones.
    """
    q = 22 if int16_tables else 16
    segment = fx.shift_right(graph, normalized, 22, rounding=False)
    residual = fx.sub(graph, normalized, fx.shift_left(graph, segment, 22))
    byte = fx.sub(graph, segment, 256)
    x = np.arange(256, 513, dtype=np.float64) / 512.0
    levels = np.round(-np.log(x) * 2.0**q).astype(np.int64)  # decreasing to 0 at x = 1
    drops = levels[:256] - levels[1:]  # Q16: 128..255, Q22: 2**13..2**14
    start = fx.wide_lookup(graph, byte, levels[:256], int16_tables)
    if int16_tables:
        slope = fx.wide_lookup(graph, byte, drops, int16_tables)
    else:
        slope = fx.widen(graph, fx.int8_table(graph, fx.byte_index(graph, byte), drops - 128), zero_point=-128)
    return fx.sub(graph, start, fx.mul(graph, residual, slope, 22)), q


def log_probabilities(
    graph: TosaGraph, exps: Exponentials, distance: TosaTensor, unit: float, max_distance: int, int16_tables: bool
) -> tuple[TosaTensor, float]:
    """(G, w): ``-distance * unit - ln(total / 2**bits)`` as int32 G in steps of w = 2**-W."""
    normalized, zeros = fx.normalize(graph, exps.total)  # total = x 2**(32 - zeros), x in [0.5, 1)
    minus_log, q = negative_log(graph, normalized, int16_tables)
    largest = max_distance * unit + math.log(max(exps.row, 2)) + 32 * LN2
    power = min(q, 29 - math.ceil(math.log2(largest)))
    # -ln(total / 2**bits) = -ln(x) - (32 - zeros - bits) ln 2
    if power < q:
        minus_log = fx.shift_right(graph, minus_log, q - power)
    octaves = fx.sub(graph, 32 - exps.bits, zeros)
    log_total = fx.sub(graph, minus_log, fx.mul(graph, octaves, round(LN2 * 2.0**30), 30 - power))
    scaled_distance = rescale(graph, distance, unit * 2.0**power, fx.I32)
    return fx.sub(graph, log_total, scaled_distance), 2.0**-power


def distance_from_max(graph: TosaGraph, tensor: TosaTensor, axis: int) -> TosaTensor:
    """int32 ``max(tensor) - tensor`` along ``axis`` of an int8/int16 tensor (zero points cancel)."""
    row_max = reduce(graph, ts.Op.REDUCE_MAX, tensor, [axis])
    return fx.sub(graph, fx.widen(graph, row_max), fx.widen(graph, tensor))


def write_output(graph: TosaGraph, value: TosaTensor, unit: float, target: QuantParams, out: TosaTensor) -> TosaTensor:
    """RESCALE an int32 ``value`` (steps of ``unit``) into the quantized ``out``."""
    if value.shape != out.shape:
        value = graph.reshape(value, out.shape)
    return rescale(
        graph, value, unit / float(target.scale), tosa_dtype(target.dtype), output_zp=int(target.zero_point), out=out
    )


# Short-row exps from int8 TABLEs (fx.wide_lookup): exp(0) on the grid is its largest value,
# at least 2**15 and every value below 2**16; each is rounded by half a unit. (With exp(0) at
# 2**15 - 129 the 128-key rows of the conformer block's split attention on Ethos-U55 missed
# the budget by 1% and took the int32 exps: ethos-u55-128 7.73M -> 7.39M cycles.)
_SHORT_ROW_ONE = fx.WIDE_INT8_MAX
_SHORT_ROW_BITS = 15
_SHORT_ROW_ERROR = 0.5 / _SHORT_ROW_ONE


def _short_row_exponentials(graph: TosaGraph, x: TosaTensor, axis: int, unit: float, out_scale: float) -> Exponentials | None:
    """Exps of an int8 softmax's row with absolute precision (each within ``error`` of
    exp(0), so each p within (row + 1) ``error``) when that stays under TABLE_BUDGET
    output steps: the distance d (0..255) times 128 is an int16 TABLE position on an
    entry (fx.exp16_lookup) where int16 look-ups are allowed, else the byte looked up in
    a pair of int8 TABLEs (fx.wide_lookup). None for longer rows."""
    row = x.shape[axis]
    error = fx.EXP16_ERROR if graph.int16_internals else _SHORT_ROW_ERROR
    if row > TABLE_MAX_ROW or (row + 1) * error > TABLE_BUDGET * out_scale:
        return None
    if graph.int16_internals:
        row_max = reduce(graph, ts.Op.REDUCE_MAX, x, [axis])
        position = rescale(graph, fx.sub(graph, fx.widen(graph, x), fx.widen(graph, row_max)), 128.0, fx.I16)
        return table_exponentials(graph, position, axis, unit / 128, 0.0)
    distance = distance_from_max(graph, x, axis)
    entries = np.round(_SHORT_ROW_ONE * np.exp(-np.arange(256, dtype=np.float64) * unit))
    values = fx.wide_lookup(graph, distance, entries, int16_tables=False)
    return Exponentials(values, reduce(graph, ts.Op.REDUCE_SUM, values, [axis]), _SHORT_ROW_BITS, row)


def quantized_softmax_reason(node) -> str | None:
    """What the integer (log_)softmax cannot take: rows whose int32 sums could overflow."""
    value = node.args[0].meta["val"]
    if value.dim() == 0:
        return None
    row = value.shape[reduced_axes(node.args[1], value.dim())[0]]
    if row > MAX_ROW:
        return f"dim {node.args[1]} has {row} elements; the integer softmax sums at most {MAX_ROW}"
    return None


def lower_quantized_softmax(graph: TosaGraph, node, log: bool) -> TosaTensor:
    """(log_)softmax node of quantized input along its ``dim``, into its quantized output."""
    source, target = input_qparams(node, 0), output_qparams(node)
    x = at_least_1d(graph, graph.value(node.args[0]))
    axis = reduced_axes(node.args[1], x.rank)[0]
    int16_tables = source.dtype == torch.int16
    unit, max_distance = float(source.scale), source.qmax - source.qmin
    if not log and source.dtype == torch.int8:
        exps = _short_row_exponentials(graph, x, axis, unit, float(target.scale))
        if exps is not None:
            return write_output(graph, probabilities(graph, exps), 2.0**-30, target, graph.out(node))
    distance = distance_from_max(graph, x, axis)
    exps = exponentials(graph, distance, axis, unit, max_distance, int16_tables)
    if log:
        value, step = log_probabilities(graph, exps, distance, unit, max_distance, int16_tables)
    else:
        value, step = probabilities(graph, exps), 2.0**-30
    return write_output(graph, value, step, target, graph.out(node))


class SoftmaxFamilyVisitor(FloatAndQuantizedVisitor):
    """aten._softmax / aten._log_softmax (self, dim, half_to_float; ``log`` picks which);
    quantized (INT), lowered whole in int32 (``lower_quantized_softmax``)."""

    log: bool

    def float_reason(self, node, spec):
        value = node.args[0].meta["val"]
        if node.args[2]:
            return "half_to_float=True (a float16 input with a float32 result) is not supported"
        return tm.float_tensor_reason(value) or dims_reason(node.args[1], value.dim())

    def quantized_reason(self, node, spec):
        return quantized_softmax_reason(node)

    def define_float(self, node, graph):
        source = graph.value(node.args[0])
        axis = reduced_axes(node.args[1], source.rank)[0]
        tm.bind_result(graph, node, softmax(graph, at_least_1d(graph, tm.widen(graph, source)), axis, self.log))

    def define_quantized(self, node, graph):
        lower_quantized_softmax(graph, node, log=self.log)
