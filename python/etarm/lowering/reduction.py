"""Reductions over several axes and what is built from them (mean, variance, softmax).

TOSA REDUCE_* reduce ONE axis and keep it with size 1. ``reduce`` first merges adjacent
reduced axes with a RESHAPE (free on hardware), so reducing axes (1, 2) of a rank-4
tensor is one REDUCE. Results keep the reduced axes unless the caller passes the final
(e.g. keepdim=False) shape, which the closing RESHAPE then produces directly.

The base visitors at the end serve the twins (max and min, argmax and argmin, amax and
amin, sum and mean): each op file only says which one it is.

Quantized (INT profile): max/min-style reductions move integers unchanged (input and
output share parameters) and argmax/argmin read them directly; sum and mean add
``q - zero_point`` in int32 and RESCALE once (``lower_quantized_sum``).
"""

from __future__ import annotations

import math
from typing import Sequence

import torch
import tosa_serializer as ts

from etarm.lowering import integer_sums, spatial
from etarm.lowering import tensor_math as tm
from etarm.lowering.quantized import FloatAndQuantizedVisitor, input_qparams, write_int32_result
from etarm.lowering.registry import NodeVisitor
from etarm.lowering.tensor_math import argument, float_tensor_reason
from etarm.op_names import op_name
from etarm.tosa_ir.graph import TosaGraph, TosaTensor

# Ops whose attribute also takes a NaN mode: torch propagates NaN through max/min.
_WITH_NAN_MODE = (ts.Op.REDUCE_MAX, ts.Op.REDUCE_MIN, ts.Op.ARGMAX)


def reduced_axes(dims, rank: int) -> tuple[int, ...]:
    """Torch ``dim`` (int, list, None or [] for all) -> sorted non-negative axes.

    A rank-0 tensor is reduced as rank 1 (see ``at_least_1d``).
    """
    rank = max(rank, 1)
    if dims is None or (isinstance(dims, (list, tuple)) and len(dims) == 0):
        return tuple(range(rank))
    if isinstance(dims, int):
        dims = [dims]
    return tuple(sorted({int(d) % rank for d in dims}))


def dims_reason(dims, rank: int) -> str | None:
    """Why a ``dim`` argument is out of range, or None (torch itself rejects most of these)."""
    if dims is None:
        return None
    for d in [dims] if isinstance(dims, int) else dims:
        if not -max(rank, 1) <= int(d) < max(rank, 1):
            return f"dim {d} is out of range for a rank-{rank} input"
    return None


def at_least_1d(graph: TosaGraph, tensor: TosaTensor) -> TosaTensor:
    """TOSA reductions need rank >= 1; a 0-d tensor is reduced as shape [1]."""
    return graph.reshape(tensor, (1,)) if tensor.rank == 0 else tensor


def kept_shape(shape: Sequence[int], axes: Sequence[int]) -> tuple[int, ...]:
    return tuple(1 if i in axes else d for i, d in enumerate(shape))


def reduce(graph: TosaGraph, op, tensor: TosaTensor, axes: Sequence[int], shape: Sequence[int] | None = None) -> TosaTensor:
    """REDUCE_<op> over ``axes``; the result keeps them with size 1 (TOSA convention)
    unless ``shape`` (e.g. the keepdim=False shape) is given."""
    tensor = at_least_1d(graph, tensor)
    axes = sorted(set(axes))
    if not axes:
        return tensor
    # Runs of adjacent axes that are all reduced or all kept collapse to one axis each.
    runs: list[list] = []
    for i, size in enumerate(tensor.shape):
        reduced = i in axes
        if runs and runs[-1][0] == reduced:
            runs[-1][1] *= size
        else:
            runs.append([reduced, size])
    if sum(reduced for reduced, _ in runs) == len(axes):
        # No two reduced axes are adjacent: merging would only add RESHAPEs.
        runs = [[i in axes, size] for i, size in enumerate(tensor.shape)]
    result = graph.reshape(tensor, [size for _, size in runs])
    for axis, (reduced, _) in enumerate(runs):
        if reduced:
            reduced_shape = tuple(1 if i == axis else d for i, d in enumerate(result.shape))
            attrs = (axis, ts.NanPropagationMode.PROPAGATE) if op in _WITH_NAN_MODE else (axis,)
            result = graph.emit(op, [result], reduced_shape, result.dtype, *attrs)
    return graph.reshape(result, kept_shape(tensor.shape, axes) if shape is None else shape)


def count(shape: Sequence[int], axes: Sequence[int]) -> int:
    return math.prod(shape[a] for a in axes) if shape else 1


def mean(graph: TosaGraph, tensor: TosaTensor, axes: Sequence[int], shape: Sequence[int] | None = None) -> TosaTensor:
    """Sum times the constant 1/N (TOSA 1.0 has no division); keeps the axes unless ``shape``."""
    total = reduce(graph, ts.Op.REDUCE_SUM, tensor, axes, shape)
    return tm.scale(graph, total, 1.0 / count(tensor.shape, axes))


def variance(graph: TosaGraph, tensor: TosaTensor, axes: Sequence[int], correction: float = 0.0):
    """(mean, deviations from it, sum of squared deviations / (N - correction)); axes kept.

    Two passes over the data, like torch, rather than E[x^2] - E[x]^2 (which cancels).
    """
    tensor = at_least_1d(graph, tensor)
    centre = mean(graph, tensor, axes)
    deviation = tm.sub(graph, tensor, centre)
    squares = reduce(graph, ts.Op.REDUCE_SUM, tm.mul(graph, deviation, deviation), axes)
    return centre, deviation, tm.scale(graph, squares, 1.0 / (count(tensor.shape, axes) - correction))


def correction_reason(correction, shape: Sequence[int], axes: Sequence[int]) -> str | None:
    if count(shape, axes) - correction <= 0:
        return f"correction={correction} leaves no degrees of freedom over {count(shape, axes)} elements"
    return None


def softmax(graph: TosaGraph, tensor: TosaTensor, axis: int, log: bool = False, zero_masked_rows: bool = False) -> TosaTensor:
    """(log_)softmax along ``axis``, shifted by the maximum so EXP cannot overflow.

    ``zero_masked_rows``: a row that is -inf throughout gives zeros instead of NaN, as
    torch's attention does for fully masked queries. Clamping the row maximum to the
    lowest finite float keeps exp(-inf - max) = 0, and flooring the sum at the smallest
    normal float makes 0 * (1/sum) = 0; a row with any finite entry has a finite maximum
    and a sum >= 1, so both clamps leave it unchanged.
    """
    row_max = reduce(graph, ts.Op.REDUCE_MAX, tensor, [axis])
    if zero_masked_rows:
        row_max = _at_least(graph, row_max, _finfo(tensor).min)
    shifted = tm.sub(graph, tensor, row_max)
    exps = tm.unary(graph, ts.Op.EXP, shifted)
    total = reduce(graph, ts.Op.REDUCE_SUM, exps, [axis])
    if log:
        return tm.sub(graph, shifted, tm.unary(graph, ts.Op.LOG, total))
    if zero_masked_rows:
        total = _at_least(graph, total, _finfo(tensor).tiny)
    return tm.mul(graph, exps, tm.unary(graph, ts.Op.RECIPROCAL, total))


def _finfo(tensor: TosaTensor):
    return torch.finfo(torch.float16 if tensor.dtype == ts.DType.FP16 else torch.float32)


def _at_least(graph: TosaGraph, tensor: TosaTensor, floor: float) -> TosaTensor:
    bound = tm.scalar(graph, float(floor), tensor.dtype, tensor.rank)
    return graph.emit(ts.Op.MAXIMUM, [tensor, bound], tensor.shape, tensor.dtype, ts.NanPropagationMode.PROPAGATE)


def dtype_kwarg_reason(node: torch.fx.Node) -> str | None:
    """sum/mean/cumsum/prod's ``dtype=`` would need a cast we do not emit."""
    dtype = node.kwargs.get("dtype")
    if dtype is not None and dtype != node.args[0].meta["val"].dtype:
        return f"dtype={dtype} differs from the input dtype"
    return None


def reduction_reason(node: torch.fx.Node, dims) -> str | None:
    """Shared check of float reductions: input dtype, ``dim`` range, ``dtype=``."""
    value = node.args[0].meta["val"]
    return tm.float_tensor_reason(value) or dims_reason(dims, value.dim()) or dtype_kwarg_reason(node)


def lower_reduction(graph: TosaGraph, node: torch.fx.Node, op, dims) -> TosaTensor:
    """sum/mean/amax/amin/prod-style node: reduce ``dims`` of args[0]; binds the result.

    Sums and products accumulate FP16 in FP32, like torch on CPU.
    """
    source = graph.value(node.args[0])
    tensor = source if op in (ts.Op.REDUCE_MAX, ts.Op.REDUCE_MIN) else tm.widen(graph, source)
    axes = reduced_axes(dims, source.rank)
    shape = node.meta["val"].shape
    result = mean(graph, tensor, axes, shape) if op is None else reduce(graph, op, tensor, axes, shape)
    return tm.bind_result(graph, node, result)


def quantized_sum_reason(node: torch.fx.Node, spec, dims) -> str | None:
    """INT check of sum/mean: the int32 sum of the reduced elements must not overflow."""
    value = node.args[0].meta["val"]
    elements = count(tuple(value.shape) or (1,), reduced_axes(dims, value.dim()))
    return integer_sums.int16_zero_point_reason(node) or integer_sums.sum_reason(node, spec, elements, "the reduction")


def lower_quantized_sum(graph: TosaGraph, node: torch.fx.Node, dims, average: bool) -> TosaTensor:
    """Quantized sum (or mean when ``average``) of args[0] over ``dims``: REDUCE_SUM of the
    int32 ``q - zero_point``, then one RESCALE (by 1/N more for the mean) into the output."""
    source = input_qparams(node, 0)
    tensor = at_least_1d(graph, graph.value(node.args[0]))
    axes = reduced_axes(dims, tensor.rank)
    if average and tensor.rank == 4 and sorted(axes) == [2, 3] and integer_sums.averages_in_place(node):
        # A global average pool of NCHW whose result keeps the input's parameters.
        nhwc = spatial.to_channels_last(graph, tensor, 2)
        n, h, w, c = nhwc.shape
        pooled = integer_sums.average_pool(graph, nhwc, (h, w), (1, 1), (n, 1, 1, c), int(source.zero_point))
        out = graph.out(node)
        graph.reshape_into(pooled, out)
        return out
    centred = integer_sums.centred_int32(graph, tensor, int(source.zero_point))
    total = reduce(graph, ts.Op.REDUCE_SUM, centred, axes, node.meta["val"].shape)
    unit = float(source.scale) / (count(tensor.shape, axes) if average else 1)
    return write_int32_result(graph, node, total, unit)


def arg_extreme(graph: TosaGraph, tensor: TosaTensor, axis: int, largest: bool) -> TosaTensor:
    """Index (INT32, axis dropped) of the first maximum/minimum along ``axis``.

    The minimum is ARGMAX of the negation, which is exact for floats (NaN stays NaN,
    so a NaN wins either way, as in torch); integers use ~q = -q - 1, which reverses
    their order without overflowing.
    """
    tensor = at_least_1d(graph, tensor)
    if not largest and tensor.dtype in (ts.DType.INT8, ts.DType.INT16):
        tensor = tm.unary(graph, ts.Op.BITWISE_NOT, tensor)
    elif not largest:
        tensor = tm.sub(graph, tm.scalar(graph, 0.0, tensor.dtype, tensor.rank), tensor)
    shape = tuple(d for i, d in enumerate(tensor.shape) if i != axis)
    return graph.emit(ts.Op.ARGMAX, [tensor], shape, ts.DType.INT32, axis, ts.NanPropagationMode.PROPAGATE)


def lower_arg_extreme(graph: TosaGraph, node: torch.fx.Node, dim, largest: bool) -> TosaTensor:
    """argmax/argmin node; ``dim=None`` searches the flattened input."""
    tensor = graph.value(node.args[0])
    if dim is None:
        tensor = graph.reshape(tensor, (math.prod(tensor.shape),))
    axis = reduced_axes(dim if dim is not None else 0, tensor.rank)[0]
    return tm.bind_result(graph, node, arg_extreme(graph, tensor, axis, largest))


def lower_extreme_with_index(graph: TosaGraph, node: torch.fx.Node, largest: bool) -> None:
    """max.dim/min.dim: item 0 the values (REDUCE_MAX/MIN), item 1 their indices (ARGMAX)."""
    tensor = graph.value(node.args[0])
    axis = reduced_axes(node.args[1], tensor.rank)[0]
    op = ts.Op.REDUCE_MAX if largest else ts.Op.REDUCE_MIN
    used = tm.used_items(node)
    # Only the results read: an unread quantized values result would have no integer type.
    if 0 in used:
        tm.bind_result(graph, node, reduce(graph, op, tensor, [axis], shape=node.meta["val"][0].shape), index=0)
    if 1 in used:
        tm.bind_result(graph, node, arg_extreme(graph, tensor, axis, largest), index=1)


class ExtremeVisitor(NodeVisitor):
    """aten.max / aten.min (``largest`` picks which): ``.dim`` gives values and indices,
    ``.default`` reduces all axes. Quantized values pass through unchanged."""

    profiles = frozenset({"FP", "INT"})
    largest: bool

    def check(self, node, spec):
        value = node.args[0].meta["val"]
        dim = node.args[1] if op_name(node.target).endswith(".dim") else None
        return float_tensor_reason(value) or dims_reason(dim, value.dim())

    def define(self, node, graph):
        if op_name(node.target).endswith(".dim"):
            lower_extreme_with_index(graph, node, largest=self.largest)
        else:
            lower_reduction(graph, node, ts.Op.REDUCE_MAX if self.largest else ts.Op.REDUCE_MIN, None)


# Integer data TOSA ARGMAX compares (INT profile); int32 has no ARGMAX.
_ARG_INTEGER_DTYPES = (torch.int8, torch.int16)


def arg_input_reason(value, spec) -> str | None:
    """Why ARGMAX cannot search ``value`` (a fake tensor): floats, or int8/int16 data on INT."""
    if isinstance(value, torch.Tensor) and value.dtype in _ARG_INTEGER_DTYPES and value.numel():
        return None if "INT" in spec.profiles else f"input dtype {value.dtype} needs the TOSA INT profile"
    return float_tensor_reason(value)


class ArgExtremeVisitor(NodeVisitor):
    """aten.argmax / aten.argmin (``largest`` picks which): TOSA ARGMAX (of the negated input for
    argmin); dim=None flattens first. Quantized inputs, and int8/int16 data, are compared
    as integers (the order of q is that of the real values) and need no output parameters."""

    profiles = frozenset({"FP", "INT"})
    handles_qparams = True
    largest: bool

    def check(self, node, spec):
        value = node.args[0].meta["val"]
        return arg_input_reason(value, spec) or dims_reason(argument(node, 1, "dim"), value.dim())

    def define(self, node, graph):
        lower_arg_extreme(graph, node, argument(node, 1, "dim"), largest=self.largest)


class AxesReductionVisitor(NodeVisitor):
    """aten.amax / aten.amin: the TOSA ``reduce_op`` over each axis of ``dim``; quantized
    values pass through unchanged."""

    profiles = frozenset({"FP", "INT"})
    reduce_op: ts.Op

    def check(self, node, spec):
        return reduction_reason(node, argument(node, 1, "dim"))

    def define(self, node, graph):
        lower_reduction(graph, node, self.reduce_op, argument(node, 1, "dim"))


class SumReductionVisitor(FloatAndQuantizedVisitor):
    """aten.sum / aten.mean (``average`` picks which) over the axes of ``dim``; quantized (INT),
    REDUCE_SUM of the int32 ``q - zero_point`` and one RESCALE (``lower_quantized_sum``)."""

    average: bool

    def float_reason(self, node, spec):
        return reduction_reason(node, argument(node, 1, "dim"))

    def quantized_reason(self, node, spec):
        return quantized_sum_reason(node, spec, argument(node, 1, "dim"))

    def define_float(self, node, graph):
        lower_reduction(graph, node, None if self.average else ts.Op.REDUCE_SUM, argument(node, 1, "dim"))

    def define_quantized(self, node, graph):
        lower_quantized_sum(graph, node, argument(node, 1, "dim"), average=self.average)
