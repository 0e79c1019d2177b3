"""Shared pieces of layer/group/RMS/batch norm: standardize over axes, then scale and shift.

Float (FP profile) first, then the integer (INT profile) lowering the same ops share.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import torch
import tosa_serializer as ts

from etarm.errors import EtarmError
from etarm.lowering import fixed_point as fx
from etarm.lowering import tensor_math as tm
from etarm.lowering.quantized import FloatAndQuantizedVisitor, input_qparams, output_qparams, rescale
from etarm.lowering.reduction import (
    at_least_1d,
    correction_reason,
    mean,
    reduce,
    reduced_axes,
    reduction_reason,
    variance,
)
from etarm.lowering.shapes import concat, slice_tensor
from etarm.tosa_ir.graph import TosaGraph, TosaTensor
from etarm.tosa_ir.mapping import tosa_dtype
from etarm.tosa_ir.quant_params import is_dequantize, qparams_of


def standardize(graph: TosaGraph, tensor: TosaTensor, axes: Sequence[int], eps: float):
    """((x - mean) * rstd, mean, rstd) with rstd = RSQRT(biased variance + eps); axes kept."""
    centre, deviation, var = variance(graph, tensor, axes, correction=0)
    rstd = tm.unary(graph, ts.Op.RSQRT, tm.add_scalar(graph, var, eps))
    return tm.mul(graph, deviation, rstd), centre, rstd


def rms_scale(graph: TosaGraph, tensor: TosaTensor, axes: Sequence[int], eps: float) -> TosaTensor:
    """x * RSQRT(mean(x^2) + eps)."""
    mean_square = mean(graph, tm.mul(graph, tensor, tensor), axes)
    return tm.mul(graph, tensor, tm.unary(graph, ts.Op.RSQRT, tm.add_scalar(graph, mean_square, eps)))


def channel_vector(graph: TosaGraph, node_or_none, shape: Sequence[int], dtype) -> TosaTensor | None:
    """An optional weight/bias operand reshaped to ``shape`` (broadcastable) in ``dtype``."""
    if node_or_none is None:
        return None
    tensor = graph.value(node_or_none)
    return tm.cast(graph, graph.reshape(tensor, shape), dtype)


def affine(graph: TosaGraph, tensor: TosaTensor, weight, bias, shape: Sequence[int]) -> TosaTensor:
    """``tensor * weight + bias``, the optional weight and bias (fx nodes) as ``channel_vector``s."""
    weight, bias = (channel_vector(graph, arg, shape, tensor.dtype) for arg in (weight, bias))
    if weight is not None:
        tensor = tm.mul(graph, tensor, weight)
    if bias is not None:
        tensor = tm.add(graph, tensor, bias)
    return tensor


def bind_standardized(
    graph: TosaGraph, node: torch.fx.Node, normalized: TosaTensor, centre: TosaTensor, rstd: TosaTensor
) -> None:
    """Binds result 0 (the output) and, where used, results 1 (the mean) and 2 (the rstd)."""
    tm.bind_result(graph, node, normalized, index=0)
    used = tm.used_items(node)
    for index, stat in ((1, centre), (2, rstd)):
        if index in used:
            tm.bind_result(graph, node, stat, index=index)


def trailing_flattened(shape: Sequence[int], count: int) -> tuple[int, ...]:
    """``shape`` with its last ``count`` dimensions merged into one (normalized_shape)."""
    lead = tuple(shape[: len(shape) - count])
    return lead + (math.prod(shape[len(shape) - count :]),)


def optional_operand_reason(node: torch.fx.Node, names_and_args) -> str | None:
    """Weight/bias/stat operands must be float tensors like the input."""
    for name, arg in names_and_args:
        if arg is None:
            continue
        if not isinstance(arg, torch.fx.Node):
            return f"{name} is not a tensor"
        reason = tm.float_tensor_reason(arg.meta["val"], name)
        if reason:
            return reason
    return None


# --- INT profile: norms lowered whole in int32 ------------------------------------------------
# Design: each norm is ONE quantized op (its input and output quantized, nothing inside):
# splitting it at quantization time into mean/sub/square/mean/add/rsqrt/mul ops would
# round the variance and rsqrt to 8 (or 16) bits on the way, several output steps of
# error for int8. Whole, mean and variance are exact integer sums, rsqrt is a Newton
# iteration (fixed_point.py) and only the final RESCALE rounds: within 1 LSB of
# quantize(norm(dequantize(x))), with ops Vela runs on Ethos-U55 and U85.
#
# Statistics, with x the integer input centred on its zero point and N values per row:
#   D = N x - sum(x) = N (x - mean), exact (or D = x for RMS norm);
#   D is shifted left by k = CLZ(row spread bound) - 2 so its largest value has 29-30
#   bits whatever the row's scale; V = sum(round(D^2 / 2**(30 + log2 N))) then fits int32
#   with ~26 bits, and 1 / sqrt(mean square + eps) follows from rsqrt(V + eps term).
# The eps term grows with 4**k, so k is capped where it would pass 2**29 (the row is
# then so flat that eps dominates and V needs no more bits).


def quantized_parameter(graph: TosaGraph, node: torch.fx.Node, index: int) -> np.ndarray | None:
    """Real values of a quantized constant parameter argument (None if the argument is None)."""
    arg = node.args[index] if index < len(node.args) else None
    if arg is None:
        return None
    data = graph.constant_data(graph.value(arg))
    if data is None:
        raise EtarmError(f"{node.name}: argument '{arg.name}' must be a constant for the INT lowering")
    qparams = input_qparams(node, index)
    scales = qparams.scales.reshape((-1,) + (1,) * (data.ndim - 1)) if qparams.per_channel else float(qparams.scale)
    zero_points = qparams.zero_points.reshape((-1,) + (1,) * (data.ndim - 1)) if qparams.per_channel else int(qparams.zero_point)
    return (data.astype(np.float64) - zero_points) * scales


def integer_normalized(
    graph: TosaGraph, x: TosaTensor, zero_point: int, axes: Sequence[int], eps_q: float, centred: bool
) -> tuple[TosaTensor, float]:
    """(n, unit): int32 ``n * unit = (x - mean) / sqrt(var + eps_q)`` (RMS: ``x / sqrt(mean(x^2) + eps_q)``)
    along ``axes`` of the int8/int16 ``x``; ``eps_q`` is eps in squared input steps."""
    count = math.prod(x.shape[a] for a in axes)
    if centred:
        short_row = _short_row_normalized(graph, x, axes, eps_q, count)
        if short_row is not None:
            return short_row
    log_count = math.ceil(math.log2(count)) if count > 1 else 0
    centred_x = fx.widen(graph, x, zero_point)
    high = reduce(graph, ts.Op.REDUCE_MAX, x, axes)
    low = reduce(graph, ts.Op.REDUCE_MIN, x, axes)
    if centred:
        deviation = fx.sub(graph, fx.mul(graph, centred_x, count), reduce(graph, ts.Op.REDUCE_SUM, centred_x, axes))
        bound = fx.mul(graph, fx.sub(graph, fx.widen(graph, high), fx.widen(graph, low)), count)
        scale = count  # D = scale * (x - mean)
    else:
        deviation = centred_x
        # |high| + |low| (centred) lies in [max |x|, 2 max |x|]; Vela cannot take 0 - low on U55.
        bound = fx.add(graph, fx.absolute(graph, fx.widen(graph, high, zero_point)), fx.absolute(graph, fx.widen(graph, low, zero_point)))
        scale = 1
    shift = 30 + log_count
    eps_base = eps_q * scale**2 * count * 2.0**-shift  # the eps term at k = 0, in units of V
    if eps_base > 2**29:
        raise EtarmError(f"eps is too large for the input's scale (eps / scale^2 = {eps_q:g})")
    k_max = 30 if eps_base == 0 else min(30, math.floor((29 - math.log2(eps_base)) / 2))
    k = fx.minimum(graph, fx.sub(graph, fx.count_leading_zeros(graph, bound), 2), k_max)
    normalized = fx.shift_left(graph, deviation, k)  # |.| < 2**30, the largest >= 2**28 (bound <= 2 max |D|)
    total = reduce(graph, ts.Op.REDUCE_SUM, fx.mul(graph, normalized, normalized, shift), axes)  # < 2**30
    if eps_base:
        eps_term = fx.shift_right(
            graph,
            fx.const(graph, round(eps_base * 4.0**k_max), total.rank),
            fx.minimum(graph, fx.shift_left(graph, fx.sub(graph, k_max, k), 1), 31),
        )
        total = fx.add(graph, total, eps_term)
    inverse, half = fx.rsqrt(graph, fx.maximum(graph, total, 1))
    # n = normalized * inverse * 2**(half - 44.5 - shift / 2) * sqrt(count); a row with any
    # spread has half <= 2 + log2(count) / 2 (its total is >= 2**(26 - log2 count)).
    product = fx.mul(graph, normalized, inverse, 30)
    most = 2 + (log_count + 1) // 2
    n = fx.shift_right(graph, product, fx.maximum(graph, fx.sub(graph, most, half), 0))
    return n, 2.0 ** (most - 14.5 - shift / 2) * math.sqrt(count)


# Short int8 rows (N <= 181, e.g. a transformer's width) skip the scaling by the row's
# spread: T = N sum(x^2) - sum(x)^2 = N^2 var is then an exact int32, so no REDUCE_MAX and
# REDUCE_MIN (the costliest reductions on Ethos-U) and fewer int32 ops. Measured on the
# transformer block's two layer norms (Vela 5.2.0): ethos-u55-128 82156 -> 68416 cycles.


def _short_rows(x: TosaTensor, count: int, eps_q: float) -> bool:
    """Whether rows of ``count`` int8 values take ``_short_row_normalized``'s exact statistics."""
    largest = count * count * 255 * 255 / 4 + count * count * eps_q
    return x.dtype == fx.I8 and largest < 2**29 and count * count * 255 * 128 < 2**31


def _short_row_normalized(
    graph: TosaGraph, x: TosaTensor, axes: Sequence[int], eps_q: float, count: int
) -> tuple[TosaTensor, float] | None:
    """``integer_normalized`` (centred) from exact integer statistics, or None when the
    row is too long (or eps too large) for them to fit int32.

    With c = x (the zero point cancels in both), D = N c - sum(c) and
    T = sum(D c) = N sum(c^2) - sum(c)^2 are exact (|D| <= 255 N, so every partial sum of
    the D c stays below N^2 255 128 < 2**31; T <= N^2 255^2 / 4 < 2**29 by Popoviciu's
    inequality, and >= N - 1 unless the row is flat):
    n = (c - mean) / sqrt(var + eps_q) = D / sqrt(T + N^2 eps_q). The eps term is added
    on T's grid scaled by 2**a (a as large as int32 allows, >= 1): its rounding is at most
    2**-(a + 1) / (N - 1) of the sum. One Newton step from the int8 table's first guess
    (2**-7.7) gives rsqrt to 2**-14.8: < 0.01 of an int8 output step.
    """
    if not _short_rows(x, count, eps_q):
        return None
    spread = 255
    eps_term = count * count * eps_q
    largest = count * count * spread * spread / 4 + eps_term
    a = math.floor(math.log2((2**31 - 1) / (largest + 1)))
    values = fx.widened(graph, x)  # D and T do not depend on the zero point
    total = reduce(graph, ts.Op.REDUCE_SUM, values, axes)  # |.| <= N 128
    deviation = fx.sub(graph, fx.mul(graph, values, count), total)  # D, |D| <= N 255 < 2**16
    # T = sum(D c) (= N sum(c^2) - sum(c)^2): one sum of products, no per-row products.
    spread_sum = reduce(graph, ts.Op.REDUCE_SUM, fx.mul(graph, deviation, values), axes)
    if a:
        spread_sum = fx.shift_left(graph, spread_sum, a)
    eps_steps = round(eps_term * 2.0**a)
    spread_sum = fx.add(graph, spread_sum, eps_steps) if eps_steps else fx.maximum(graph, spread_sum, 1)
    inverse, half = fx.rsqrt(graph, spread_sum, steps=1)  # W**-0.5 = inverse * 2**(half - 44.5)
    # n = D inverse 2**(half - 44.5 + a/2); |n| <= sqrt(N): D inverse >> s << half stays < 2**30.
    shift = max(0, math.ceil(14.5 - a / 2 + math.log2(count) / 2))
    n = fx.shift_left(graph, fx.mul(graph, deviation, inverse, shift), half)
    return n, 2.0 ** (shift + a / 2 - 44.5)


def write_affine(
    graph: TosaGraph,
    value: TosaTensor,
    unit: float,
    bound: float,
    weight: np.ndarray | None,
    bias: np.ndarray | None,
    target,
    out: TosaTensor,
) -> TosaTensor:
    """``out = quantize(value * unit * weight + bias)`` for int32 ``value`` with
    |value * unit| <= ``bound``; weight and bias broadcast against ``value``.

    A positive weight along the last axis goes into the per-channel multipliers of the
    final RESCALE (the bias, if any, added before it on the value's own grid), which
    spares an int32 MUL by a broadcast vector (Ethos-U55: 4 cycles per value). Otherwise
    the weight becomes a 30-bit int32 multiplier (MUL with a rounding shift), the bias an
    int32 addend, both on a grid of (largest possible result) / 2**29.
    """
    channel_weight = _last_axis_weight(weight, value, out)
    if channel_weight is not None:
        # The bias, in steps of the value, may not fit beside it: drop low bits of the value
        # first (while a step stays below 2**-12 of an output step).
        reach = (0.0 if bias is None else float(np.abs(bias.reshape(-1) / channel_weight).max())) + bound
        drop = max(0, math.ceil(math.log2(reach / unit / (2**31 - 4))))
        if drop and unit * 2.0**drop * float(channel_weight.max()) <= float(target.scale) * 2.0**-12:
            value = fx.shift_right(graph, value, drop)
            unit *= 2.0**drop
        addend = None if bias is None else np.round(bias.reshape(-1) / (unit * channel_weight)).astype(np.int64)
        if bound / unit + (0 if addend is None else float(np.abs(addend).max())) < 2**31 - 2:
            if addend is not None and addend.any():
                value = fx.add(graph, value, fx.const(graph, addend.reshape((1,) * (value.rank - 1) + (-1,)), value.rank))
            if value.shape != out.shape:
                value = graph.reshape(value, out.shape)
            scales = [unit * float(w) / float(target.scale) for w in channel_weight]
            return rescale(graph, value, scales, tosa_dtype(target.dtype), output_zp=int(target.zero_point), out=out)
    largest_weight = float(np.abs(weight).max()) if weight is not None else 1.0
    largest_bias = float(np.abs(bias).max()) if bias is not None else 0.0
    grid = max(bound * largest_weight + largest_bias, 2.0**-60) / 2.0**29
    if weight is not None:
        weight_bits = 30 - math.ceil(math.log2(largest_weight)) if largest_weight > 0 else 0
        multiplier = np.round(np.broadcast_to(weight, weight.shape) * 2.0**weight_bits).astype(np.int64)
        shift = max(0, math.ceil(math.log2(grid / unit)) + weight_bits)
        if shift > 63:
            raise EtarmError("internal: affine shift out of range")
        value = fx.mul(graph, value, fx.const(graph, multiplier.reshape(_rank_shape(multiplier, value.rank)), value.rank), shift)
        unit = unit * 2.0 ** (shift - weight_bits)
    elif unit < grid:
        value = rescale(graph, value, unit / grid, fx.I32)
        unit = grid
    if bias is not None:
        addend = np.round(bias / unit).astype(np.int64)
        value = fx.add(graph, value, fx.const(graph, addend.reshape(_rank_shape(addend, value.rank)), value.rank))
    if value.shape != out.shape:
        value = graph.reshape(value, out.shape)
    return rescale(
        graph, value, unit / float(target.scale), tosa_dtype(target.dtype), output_zp=int(target.zero_point), out=out
    )


def _last_axis_weight(weight: np.ndarray | None, value: TosaTensor, out: TosaTensor) -> np.ndarray | None:
    """The weight as one positive factor per value of the last axis (kept by ``out``), if it is one."""
    if weight is None or value.shape[-1] != out.shape[-1] or weight.shape[-1] != value.shape[-1]:
        return None
    if weight.size != weight.shape[-1] or not np.all(weight > 0):
        return None
    return weight.reshape(-1).astype(np.float64)


def _rank_shape(array: np.ndarray, rank: int) -> tuple[int, ...]:
    return (1,) * (rank - array.ndim) + array.shape


def spread_bound(qparams, centred: bool) -> int:
    """Largest row range (centred) or |q - zero point| (RMS) of a quantized input."""
    if centred:
        return qparams.qmax - qparams.qmin
    zero_point = int(qparams.zero_point)
    return max(qparams.qmax - zero_point, zero_point - qparams.qmin)


def normalization_row_reason(count: int, spread: int) -> str | None:
    """The statistics' int32 intermediates bound the row length (count x spread < 2**30)."""
    if count * spread >= 2**30:
        return f"rows of {count} values are too long for the integer statistics (at most {(2**30 - 1) // spread})"
    return None


def input_spread(node: torch.fx.Node, centred: bool) -> int:
    """``spread_bound`` of argument 0 from its dequantize node (int16's if not known yet)."""
    arg = node.args[0]
    if is_dequantize(arg):
        return spread_bound(qparams_of(arg), centred)
    return 65535


def quantized_norm_reason(node: torch.fx.Node, count: int, centred: bool) -> str | None:
    """INT-profile checks shared by the norms: only the normalized result may be used."""
    if tm.used_items(node) - {0}:
        return "the saved mean/rstd results are used (the INT lowering computes only the normalized output)"
    return normalization_row_reason(count, input_spread(node, centred))


# A layer norm of int8 rows with the short-row statistics whose int32 values pass this many
# bytes runs on equal blocks of rows, one after another: Ethos-U85 then keeps a block's int32
# statistics in SRAM (the conformer block's 128 x 144 layer norms, 72 KiB per int32 tensor:
# SRAM 290 -> 247 KiB, cycles unchanged). Only those: DeiT's 197 rows of 192 (the other
# statistics) in blocks of 66, 66 and 65 came out wrong on the NPU model (Vela 5.2.0).
_BLOCK_BYTES = 1 << 16
_BLOCK_MIN_ROWS = 8


def _row_blocks(x: TosaTensor, affine_shape, weight, bias, centred: bool, eps_q: float) -> list[tuple[int, int]] | None:
    """(start, rows) blocks along the second-to-last axis of ``x``, or None to normalize it
    whole (small enough, other statistics, no equal blocks, or an affine shape or weights
    that are not per last-axis value)."""
    per_value = all(p is None or p.size == x.shape[-1] for p in (weight, bias))
    if x.rank < 2 or tuple(affine_shape) != x.shape or not per_value or not centred:
        return None
    if not _short_rows(x, x.shape[-1], eps_q):
        return None
    count = x.shape[-2]
    needed = -(-math.prod(x.shape) * 4 // _BLOCK_BYTES)
    if needed <= 1:
        return None
    for blocks in range(needed, count // _BLOCK_MIN_ROWS + 1):
        if count % blocks == 0:
            size = count // blocks
            return [(start, size) for start in range(0, count, size)]
    return None


def lower_quantized_norm(
    graph: TosaGraph,
    node: torch.fx.Node,
    grouped_shape: Sequence[int],
    eps: float,
    centred: bool,
    weight: np.ndarray | None,
    bias: np.ndarray | None,
    affine_shape: Sequence[int],
    parameter_shape: Sequence[int],
) -> TosaTensor:
    """A quantized layer/group/RMS norm into the node's output (item 0 of tuple results):
    normalize ``x`` reshaped to ``grouped_shape`` over its last axis, reshape the result
    to ``affine_shape`` and apply ``* weight + bias`` (reshaped to ``parameter_shape``)."""
    source = input_qparams(node, 0)
    x = graph.reshape(graph.value(node.args[0]), grouped_shape)
    eps_q = float(eps) / float(source.scale) ** 2
    fake = node.meta["val"]
    tuple_result = isinstance(fake, (list, tuple))
    fake = fake[0] if tuple_result else fake
    out = graph.temp(tuple(fake.shape), tosa_dtype(fake.dtype), stem=node.name)
    if weight is not None:
        weight = weight.reshape(parameter_shape)
    if bias is not None:
        bias = bias.reshape(parameter_shape)

    def normalized(rows: TosaTensor, shape: Sequence[int], into: TosaTensor) -> TosaTensor:
        n, unit = integer_normalized(graph, rows, int(source.zero_point), [rows.rank - 1], eps_q, centred)
        # |n| <= sqrt(N - 1) for N values per group.
        bound = math.sqrt(grouped_shape[-1])
        return write_affine(graph, graph.reshape(n, shape), unit, bound, weight, bias, output_qparams(node, 0), into)

    blocks = _row_blocks(x, affine_shape, weight, bias, centred, eps_q)
    if blocks is None:
        result = normalized(x, affine_shape, out)
    else:
        axis, pieces = x.rank - 2, []
        for start, size in blocks:
            shape = x.shape[:axis] + (size, x.shape[-1])
            rows = slice_tensor(graph, x, (0,) * axis + (start, 0), shape)
            pieces.append(normalized(rows, shape, graph.temp(shape, out.dtype)))
        graph.reshape_into(concat(graph, pieces, axis), out)
        result = out
    if tuple_result:
        graph.bind_item(node, 0, result)
    else:
        graph.bind(node, result)
    return result


def lower_quantized_variance(graph: TosaGraph, node: torch.fx.Node, axes: Sequence[int], correction: float, root: bool):
    """var (std when ``root``) of a quantized input over ``axes`` into the node's output.

    D = N x - sum(x) is exact; sum(D^2) is taken with a rounding shift sized so N values
    of the largest possible D^2 fit int32, i.e. an absolute error of N / 2**31 of the
    largest possible variance, far below an output step. std takes the fixed-point
    square root of that sum (exact to ~2**-28).
    """
    source, target = input_qparams(node, 0), output_qparams(node)
    x = at_least_1d(graph, graph.value(node.args[0]))
    count = math.prod(x.shape[a] for a in axes)
    centred_x = fx.widen(graph, x, int(source.zero_point))
    deviation = fx.sub(graph, fx.mul(graph, centred_x, count), reduce(graph, ts.Op.REDUCE_SUM, centred_x, axes))
    largest = count * (count * spread_bound(source, centred=True)) ** 2
    shift = max(0, math.ceil(math.log2(largest)) - 30)
    total = reduce(graph, ts.Op.REDUCE_SUM, fx.mul(graph, deviation, deviation, shift), axes)
    # variance = total * 2**shift / (count^2 (count - correction)) input steps squared
    variance_unit = float(source.scale) ** 2 * 2.0**shift / (count**2 * (count - correction))
    if root:
        root_value, half = fx.square_root(graph, fx.maximum(graph, total, 1))
        # sqrt(total) = root * 2**(15.5 - 29 - half); a zero total must give 0, not sqrt(1).
        value = fx.mul(graph, fx.shift_right(graph, root_value, half), fx.minimum(graph, total, 1))
        value_unit = math.sqrt(variance_unit) * 2.0 ** (15.5 - 29)
    else:
        value, value_unit = total, variance_unit
    out = graph.out(node)
    if value.shape != out.shape:
        value = graph.reshape(value, out.shape)
    return rescale(
        graph, value, value_unit / float(target.scale), tosa_dtype(target.dtype), output_zp=int(target.zero_point), out=out
    )


class NormVisitor(FloatAndQuantizedVisitor):
    """Layer, group and RMS norm: a float input normalized over groups of values, then times the
    optional weight and plus the optional bias (the arguments at ``affine_indices``).

    Quantized (INT): lowered whole in int32, exact integer statistics and a fixed-point
    rsqrt (``lower_quantized_norm``); only the normalized output (result 0) is computed.
    """

    centred = True  # subtracts the mean (RMS norm does not)
    affine_indices: tuple[int, int | None]  # of the weight and the bias (None: the op has none)

    def float_reason(self, node, spec):
        operands = [
            (name, tm.argument(node, index, name))
            for name, index in zip(("weight", "bias"), self.affine_indices)
            if index is not None
        ]
        return tm.float_tensor_reason(node.args[0].meta["val"]) or optional_operand_reason(node, operands)

    def quantized_reason(self, node, spec):
        return quantized_norm_reason(node, self.normalized_count(node), centred=self.centred)

    def normalized_count(self, node: torch.fx.Node) -> int:
        """How many values each statistic is taken over."""
        raise NotImplementedError

    def quantized_affine(self, graph: TosaGraph, node: torch.fx.Node) -> tuple:
        """The real values of the constant weight and bias (None where absent)."""
        indices = self.affine_indices
        return tuple(None if index is None else quantized_parameter(graph, node, index) for index in indices)


def _correction(node: torch.fx.Node) -> float:
    """var/std's ``correction`` (1, Bessel's, when not given)."""
    correction = node.kwargs.get("correction")
    return 1 if correction is None else correction


class VarianceVisitor(FloatAndQuantizedVisitor):
    """aten.var / aten.std (``root`` picks which), .correction overloads, over the axes of ``dim``;
    quantized (INT), exact integer deviations (``lower_quantized_variance``)."""

    root: bool

    def float_reason(self, node, spec):
        value = node.args[0].meta["val"]
        dims = tm.argument(node, 1, "dim")
        reason = reduction_reason(node, dims)
        if reason is None:
            reason = correction_reason(_correction(node), tuple(value.shape) or (1,), reduced_axes(dims, value.dim()))
        return reason

    def quantized_reason(self, node, spec):
        """The rows' int32 deviations must fit."""
        value = node.args[0].meta["val"]
        axes = reduced_axes(tm.argument(node, 1, "dim"), value.dim())
        count = math.prod(value.shape[a] for a in axes) if value.dim() else 1
        return normalization_row_reason(count, input_spread(node, centred=True))

    def define_float(self, node, graph):
        source = graph.value(node.args[0])
        axes = reduced_axes(tm.argument(node, 1, "dim"), source.rank)
        _, _, result = variance(graph, tm.widen(graph, source), axes, _correction(node))
        if self.root:
            result = tm.sqrt(graph, result)
        tm.bind_result(graph, node, result)

    def define_quantized(self, node, graph):
        axes = reduced_axes(tm.argument(node, 1, "dim"), max(graph.value(node.args[0]).rank, 1))
        lower_quantized_variance(graph, node, axes, _correction(node), self.root)
