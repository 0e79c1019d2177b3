"""TOSA rewrites that let an Ethos-U run what the direct lowering would not, or run it faster.

Each rewrite keeps the graph's results bit-exact and is listed with the rule it works
around (npu_rules.py); the partitioner's ATen checks accept what a rewrite handles. They
run on the lowered graph of a partition, before the TOSA checks and Vela:

- ``pad_strided_convolutions``: CONV2D stride > 3 with padding (U55/U65) -> explicit
  padding, then an unpadded CONV2D.
- ``subsample_strided_convolutions``: DEPTHWISE_CONV2D (or dilated CONV2D) stride > 3
  (U55/U65) -> the same convolution at stride 1, then every s-th row and column.
- ``pad_strided_max_pools``: MAX_POOL2D stride > 3 with padding (U55/U65) -> PAD with the
  type's lowest value, then an unpadded MAX_POOL2D.
- ``nearest_resizes_as_half_pixel``: RESIZE NEAREST by 2, 4 or 8 (U55/U65) in the
  half-pixel encoding, the one Vela compiles.
- ``extremum_casts_as_rescales``: the int32 -> int8/int16 CAST after a MAXIMUM/MINIMUM of
  widened int8/int16 values (U55/U65 narrow only by RESCALE).
- ``sums_in_steps``: REDUCE_SUM over more than 2**16 values (U55/U65) in two steps.

And some that only save cycles: ``reductions_without_transposes``, ``global_pools_as_sums``,
``narrow_transposes``, ``trivial_transposes_as_reshapes``, ``transposes_at_lowest_rank``,
``pointwise_rows_as_batch`` (see each).
"""

from __future__ import annotations

import dataclasses
from typing import Callable

import numpy as np
import tosa_serializer as ts

from etarm.ethosu import npu_rules
from etarm.operators import shapes
from etarm.tosa.graph import TosaGraph, TosaOp, TosaTensor

_LOWEST = {ts.DType.INT8: -128, ts.DType.INT16: -32768, ts.DType.INT32: -(1 << 31)}
_WIDTH = {ts.DType.INT8: 1, ts.DType.INT16: 2, ts.DType.INT32: 4, ts.DType.INT48: 6}
_NEAREST_FACTORS = (2, 4, 8)


def _emitted(graph: TosaGraph, origin: str | None, build: Callable[[], None]) -> list[TosaOp]:
    """The ops ``build`` emits through ``graph``'s helpers, without adding them to the graph."""
    saved, saved_origin = graph.ops, graph.origin
    graph.ops, graph.origin = [], origin
    try:
        build()
        return graph.ops
    finally:
        graph.ops, graph.origin = saved, saved_origin


def _consumers(graph: TosaGraph) -> dict[str, list[TosaOp]]:
    found: dict[str, list[TosaOp]] = {}
    for op in graph.ops:
        for name in op.inputs:
            found.setdefault(name, []).append(op)
    return found


def _replace(graph: TosaGraph, replacements: dict[int, list[TosaOp]]) -> None:
    """Replaces each op (by id) with its list of ops (empty: removed)."""
    graph.ops[:] = [new for op in graph.ops for new in replacements.get(id(op), [op])]


# --- convolutions ------------------------------------------------------------------------------
def pad_strided_convolutions(graph: TosaGraph, family: str) -> int:
    """CONV2D with a stride above 3 and padding -> explicit padding, then CONV2D without.

    Ethos-U55/U65 run strides above 3 only without padding (and dilation 1). TOSA
    convolution padding contributes 0 once the input zero point is subtracted, so
    padding the input with the zero point first computes the same. The padding is a
    PAD when the zero point is non-zero, and a CONCAT of constant zero blocks when it is
    0: Vela folds a PAD of zeros back into the convolution (measured), which it then
    cannot run. Returns the number of convolutions rewritten.
    """
    if not npu_rules.is_u55_class(family):
        return 0
    rewritten: list[TosaOp] = []
    count = 0
    for op in graph.ops:
        zero_point = graph.constants.get(op.inputs[3]) if op.op == ts.Op.CONV2D else None
        if zero_point is None:
            rewritten.append(op)
            continue
        pad, stride, dilation, *rest = op.attr_args
        if max(stride) <= npu_rules.MAX_NATIVE_STRIDE or max(dilation) != 1 or not any(pad):
            rewritten.append(op)
            continue
        value = int(zero_point.reshape(-1)[0])
        padding_ops, padded = (_pad(graph, op, value) if value else _concat_zeros(graph, op))
        rewritten += padding_ops
        rewritten.append(
            dataclasses.replace(op, inputs=[padded, *op.inputs[1:]], attr_args=([0, 0, 0, 0], stride, dilation, *rest))
        )
        count += 1
    graph.ops[:] = rewritten
    return count


def _pad(graph: TosaGraph, conv: TosaOp, value: int) -> tuple[list[TosaOp], str]:
    x = graph.tensors[conv.inputs[0]]
    top, bottom, left, right = conv.attr_args[0]
    n, h, w, c = x.shape
    padded = graph.temp((n, h + top + bottom, w + left + right, c), x.dtype, stem="padded")
    amounts = graph.shape_const([0, 0, top, bottom, left, right, 0, 0])
    pad_value = graph.const([value], x.dtype, shape=(1,), stem="pad_const")
    return [TosaOp(ts.Op.PAD, [x.name, amounts.name, pad_value.name], [padded.name], (), conv.origin)], padded.name


def _concat_zeros(graph: TosaGraph, conv: TosaOp) -> tuple[list[TosaOp], str]:
    x = graph.tensors[conv.inputs[0]]
    top, bottom, left, right = conv.attr_args[0]
    ops, current = [], x
    for axis, before, after in ((1, top, bottom), (2, left, right)):
        if not before and not after:
            continue
        parts = []
        for amount, position in ((before, 0), (after, 1)):
            if amount:
                shape = list(current.shape)
                shape[axis] = amount
                parts.append((position, graph.const(np.zeros(shape), x.dtype, stem="zero_rows")))
        pieces = [t for p, t in parts if p == 0] + [current] + [t for p, t in parts if p == 1]
        shape = list(current.shape)
        shape[axis] += before + after
        joined = graph.temp(tuple(shape), x.dtype, stem="padded")
        ops.append(TosaOp(ts.Op.CONCAT, [t.name for t in pieces], [joined.name], (axis,), conv.origin))
        current = joined
    return ops, current.name


def _kernel_hw(graph: TosaGraph, op: TosaOp) -> tuple[int, int]:
    weights = graph.tensors[op.inputs[1]].shape  # CONV2D: [O, KH, KW, I]; DEPTHWISE_CONV2D: [KH, KW, C, M]
    return (weights[1], weights[2]) if op.op == ts.Op.CONV2D else (weights[0], weights[1])


def _needs_subsampling(op: TosaOp) -> bool:
    if op.op not in (ts.Op.CONV2D, ts.Op.DEPTHWISE_CONV2D):
        return False
    _pad_amounts, stride, dilation = op.attr_args[:3]
    if max(stride) <= npu_rules.MAX_NATIVE_STRIDE:
        return False
    # An undilated CONV2D runs such strides natively once unpadded (pad_strided_convolutions).
    return op.op == ts.Op.DEPTHWISE_CONV2D or max(dilation) > 1


def _shape_independent_rescale(graph: TosaGraph, op: TosaOp) -> bool:
    """A RESCALE whose parameters are per tensor or per channel (not per position)."""
    return op.op == ts.Op.RESCALE and all(graph.constants.get(name) is not None for name in op.inputs[1:])


def _subsample(graph: TosaGraph, tensor: TosaTensor, strides: list[int], out: TosaTensor) -> None:
    """``out`` = rows 0, s, 2s, ... and columns 0, s, 2s, ... of the NHWC ``tensor`` (exact multiples)."""
    n, _h, _w, c = tensor.shape
    for axis, step in ((1, strides[0]), (2, strides[1])):
        size = out.shape[axis]
        if step == 1 or tensor.shape[axis] == size:
            continue
        if size == 1:
            keep = list(tensor.shape)
            keep[axis] = 1
            tensor = graph.emit(ts.Op.SLICE, [tensor, graph.shape_const([0] * 4), graph.shape_const(keep)], keep, tensor.dtype)
            continue
        # Split the axis into (size, step) and keep index 0 of each step.
        before = n * (tensor.shape[1] if axis == 2 else 1)
        after = c * (tensor.shape[2] if axis == 1 else 1)
        split = graph.reshape(tensor, (before, size, step, after) if axis == 2 else (before * size, step, after))
        if axis == 2:
            kept = graph.emit(ts.Op.SLICE, [split, graph.shape_const([0] * 4), graph.shape_const([before, size, 1, after])], (before, size, 1, after), tensor.dtype)
        else:
            kept = graph.emit(ts.Op.SLICE, [split, graph.shape_const([0] * 3), graph.shape_const([before * size, 1, after])], (before * size, 1, after), tensor.dtype)
        shape = list(tensor.shape)
        shape[axis] = size
        tensor = graph.reshape(kept, shape)
    last = graph.ops[-1]
    last.outputs = [out.name]
    graph.tensors.pop(tensor.name, None)


def subsample_strided_convolutions(graph: TosaGraph, family: str) -> int:
    """DEPTHWISE_CONV2D (or dilated CONV2D) with a stride above 3 -> stride 1, then subsampling.

    Ethos-U55/U65 run convolution strides up to 3 (an undilated CONV2D also larger ones
    without padding). Output (y, x) of a stride-s convolution is output (s*y, s*x) of the
    same convolution at stride 1, so that is computed (s*s times the work, extended by
    padding on the far side so each strided axis holds whole steps) and every s-th row
    and column kept by RESHAPE + SLICE. Average pooling, which the INT lowering computes
    as a depthwise convolution of unit weights, takes the same path; a window covering the
    whole input (global pooling) costs nothing extra. Subsampling follows the RESCALE the
    convolution feeds when it can (int8 instead of int32 data). Returns the count.
    """
    if not npu_rules.is_u55_class(family):
        return 0
    consumers = _consumers(graph)
    replacements: dict[int, list[TosaOp]] = {}
    count = 0
    for op in graph.ops:
        if not _needs_subsampling(op):
            continue
        pad, stride, dilation, *rest = op.attr_args
        x, acc = graph.tensors[op.inputs[0]], graph.tensors[op.outputs[0]]
        kernel = _kernel_hw(graph, op)
        new_pad, new_stride, steps = list(pad), list(stride), [1, 1]
        lengths, kept = list(acc.shape[1:3]), list(acc.shape[1:3])  # stride-1 output, rows read from it
        for axis in (0, 1):
            if stride[axis] <= npu_rules.MAX_NATIVE_STRIDE:
                continue
            new_stride[axis], steps[axis] = 1, stride[axis]
            out_size = acc.shape[axis + 1]
            kept[axis] = out_size * stride[axis] if out_size > 1 else 1
            span = x.shape[axis + 1] + pad[2 * axis] + pad[2 * axis + 1] - dilation[axis] * (kernel[axis] - 1)
            new_pad[2 * axis + 1] += max(0, kept[axis] - span)
            lengths[axis] = max(kept[axis], span)
        count += 1
        if lengths == list(acc.shape[1:3]):  # one window per strided axis (global pooling): same output
            replacements[id(op)] = [dataclasses.replace(op, attr_args=(new_pad, new_stride, dilation, *rest))]
            continue
        wide = graph.temp((acc.shape[0], *lengths, acc.shape[3]), acc.dtype, stem="stride1")
        conv = dataclasses.replace(op, outputs=[wide.name], attr_args=(new_pad, new_stride, dilation, *rest))

        def build(source: TosaTensor, target: TosaTensor) -> None:
            if list(source.shape[1:3]) != kept:
                size = [source.shape[0], *kept, source.shape[3]]
                begin, size_const = graph.shape_const([0] * 4), graph.shape_const(size)
                source = graph.emit(ts.Op.SLICE, [source, begin, size_const], size, source.dtype)
            _subsample(graph, source, steps, target)

        rescale = _single_consumer(consumers, graph, acc.name)
        if rescale is not None and rescale.inputs[0] == acc.name and _shape_independent_rescale(graph, rescale):
            result = graph.tensors[rescale.outputs[0]]
            scaled = graph.temp(wide.shape, result.dtype, stem="stride1_scaled")
            moved = dataclasses.replace(rescale, inputs=[wide.name, *rescale.inputs[1:]], outputs=[scaled.name])
            replacements[id(op)] = [conv]
            replacements[id(rescale)] = [moved, *_emitted(graph, rescale.origin, lambda: build(scaled, result))]
        else:
            replacements[id(op)] = [conv, *_emitted(graph, op.origin, lambda: build(wide, acc))]
    _replace(graph, replacements)
    return count


def pointwise_rows_as_batch(graph: TosaGraph, family: str) -> int:
    """1x1 CONV2D over a column of rows ([1, R, 1, K]: the INT lowering's linear) -> the
    rows as the batch ([R, 1, 1, K]) on Ethos-U85, unless its RESCALE feeds a TABLE.

    Both layouts hold the same bytes in the same order, so RESHAPEs in and out give the
    same result. Vela's U85 estimate is lower for the batch (mlp: 2047 -> 2039 cycles),
    but it fuses a following TABLE into the convolution only at batch 1 (the transformer
    block's GELU: +816 cycles); on U55 the batch costs more (transformer block: +1352).
    """
    if npu_rules.is_u55_class(family):
        return 0
    consumers = _consumers(graph)
    replacements: dict[int, list[TosaOp]] = {}
    for op in graph.ops:
        if op.op != ts.Op.CONV2D or _kernel_hw(graph, op) != (1, 1):
            continue
        pad, stride, dilation = op.attr_args[:3]
        x, acc = graph.tensors[op.inputs[0]], graph.tensors[op.outputs[0]]
        column = x.shape[0] == 1 and x.shape[2] == 1 and x.shape[1] > 1
        if any(pad) or list(stride) != [1, 1] or list(dilation) != [1, 1] or not column:
            continue
        rescale = _single_consumer(consumers, graph, acc.name)
        if rescale is None or not _shape_independent_rescale(graph, rescale):
            continue
        result = graph.tensors[rescale.outputs[0]]
        if any(user.op == ts.Op.TABLE for user in consumers.get(result.name, [])):
            continue
        rows = x.shape[1]

        def build(op=op, rescale=rescale, x=x, acc=acc, result=result, rows=rows) -> None:
            batch = graph.reshape(x, (rows, 1, 1, x.shape[3]))
            wide = graph.temp((rows, 1, 1, acc.shape[3]), acc.dtype, stem="rows")
            graph.ops.append(dataclasses.replace(op, inputs=[batch.name, *op.inputs[1:]], outputs=[wide.name]))
            scaled = graph.temp(wide.shape, result.dtype, stem="rows_scaled")
            graph.ops.append(dataclasses.replace(rescale, inputs=[wide.name, *rescale.inputs[1:]], outputs=[scaled.name]))
            graph.reshape_into(scaled, result)

        replacements[id(op)] = []
        replacements[id(rescale)] = _emitted(graph, op.origin, build)
    _replace(graph, replacements)
    return len(replacements) // 2


# --- pooling -----------------------------------------------------------------------------------
def pad_strided_max_pools(graph: TosaGraph, family: str) -> int:
    """MAX_POOL2D with a stride above 3 and padding -> PAD with the lowest value, then no padding.

    MAX_POOL2D never picks its padding; a PAD with the type's lowest value is never picked
    over a real element either (every window holds one), so the results are the same.
    """
    if not npu_rules.is_u55_class(family):
        return 0
    replacements: dict[int, list[TosaOp]] = {}
    for op in graph.ops:
        if op.op != ts.Op.MAX_POOL2D:
            continue
        kernel, stride, pad, *rest = op.attr_args
        if max(stride) <= npu_rules.MAX_NATIVE_STRIDE or not any(pad):
            continue
        x = graph.tensors[op.inputs[0]]
        n, h, w, c = x.shape
        top, bottom, left, right = pad
        padded = graph.temp((n, h + top + bottom, w + left + right, c), x.dtype, stem="padded")
        amounts = graph.shape_const([0, 0, top, bottom, left, right, 0, 0])
        lowest = graph.const([_LOWEST[x.dtype]], x.dtype, shape=(1,), stem="pad_const")
        replacements[id(op)] = [
            TosaOp(ts.Op.PAD, [x.name, amounts.name, lowest.name], [padded.name], (), op.origin),
            dataclasses.replace(op, inputs=[padded.name], attr_args=(kernel, stride, [0, 0, 0, 0], *rest)),
        ]
    _replace(graph, replacements)
    return len(replacements)


# --- resizing ----------------------------------------------------------------------------------
def _nearest_index(out_index: int, numerator: int, denominator: int, offset: int, size: int) -> int:
    """The row TOSA RESIZE NEAREST reads for output row ``out_index``."""
    index, remainder = divmod(out_index * denominator + offset, numerator)
    return min(max(index + 1 if 2 * remainder >= numerator else index, 0), size - 1)


def half_pixel_nearest(in_size: int, out_size: int, numerator: int, denominator: int, offset: int) -> tuple[int, int, int, int] | None:
    """(n, d, offset, border) of the half-pixel encoding of a nearest resize that copies each
    row ``k`` times (k = 2, 4, 8, or 1 for a size-1 axis), or None if it is not one."""
    if in_size == 1:
        return (2, 2, 0, 0) if out_size == 1 else None
    factor = out_size // in_size
    if factor not in _NEAREST_FACTORS or out_size != factor * in_size:
        return None
    if any(_nearest_index(o, numerator, denominator, offset, in_size) != o // factor for o in range(out_size)):
        return None
    n, d, off = 2 * factor, 2, 1 - factor
    return n, d, off, (out_size - 1) * d - (in_size - 1) * n + off


def nearest_resizes_as_half_pixel(graph: TosaGraph, family: str) -> int:
    """RESIZE NEAREST that repeats each pixel 2, 4 or 8 times -> the half-pixel encoding.

    The same row indices have several RESIZE encodings; Vela compiles NEAREST for
    Ethos-U55/U65 only in the half-pixel one (n = 2k, d = 2, offset = 1 - k; measured),
    where etarm's lowering may pick another. Only resizes whose every output row (and
    column) reads input row o // k change, so results stay the same.
    """
    if not npu_rules.is_u55_class(family):
        return 0
    count = 0
    for op in graph.ops:
        if op.op != ts.Op.RESIZE or op.attr_args[0] != ts.ResizeMode.NEAREST:
            continue
        scale, offset, border = (graph.constants.get(name) for name in op.inputs[1:4])
        if scale is None or offset is None or border is None:
            continue
        x, out = graph.tensors[op.inputs[0]], graph.tensors[op.outputs[0]]
        axes = [
            half_pixel_nearest(x.shape[1 + a], out.shape[1 + a], int(scale[2 * a]), int(scale[2 * a + 1]), int(offset[a]))
            for a in (0, 1)
        ]
        if None in axes:
            continue
        new = (
            [axes[0][0], axes[0][1], axes[1][0], axes[1][1]],
            [axes[0][2], axes[1][2]],
            [axes[0][3], axes[1][3]],
        )
        if [list(map(int, scale)), list(map(int, offset)), list(map(int, border))] == [list(v) for v in new]:
            continue
        op.inputs = [op.inputs[0], *(graph.shape_const(values).name for values in new)]
        count += 1
    return count


# --- narrowing -----------------------------------------------------------------------------------
def _producers(graph: TosaGraph) -> dict[str, TosaOp]:
    return {name: op for op in graph.ops for name in op.outputs}


def _through_reshapes(producers: dict[str, TosaOp], name: str) -> TosaOp | None:
    op = producers.get(name)
    while op is not None and op.op == ts.Op.RESHAPE:
        op = producers.get(op.inputs[0])
    return op


def _widened_from(graph: TosaGraph, producers: dict[str, TosaOp], name: str, width: int) -> bool:
    """``name`` holds values of an int type at most ``width`` bytes wide, widened by CAST."""
    op = _through_reshapes(producers, name)
    if op is None or op.op != ts.Op.CAST:
        return False
    source = graph.tensors[op.inputs[0]].dtype
    return source in (ts.DType.INT8, ts.DType.INT16) and (source == ts.DType.INT8 or width >= 2)


def extremum_casts_as_rescales(graph: TosaGraph, family: str) -> int:
    """int32 -> int8/int16 CAST of a MAXIMUM/MINIMUM of CAST-widened values -> RESCALE by 1.

    TOSA 1.0 has MAXIMUM/MINIMUM for int32 only, so the INT lowering widens the integers,
    compares and narrows back with CAST, which Ethos-U55/U65 do not run. The extremum of
    values of the narrow type is one of them, so a RESCALE by 1 (which saturates where
    CAST would wrap) gives the same integers.
    """
    if not npu_rules.is_u55_class(family):
        return 0
    from etarm.operators.quantized import rescale  # the operators package imports torch

    producers = _producers(graph)
    replacements: dict[int, list[TosaOp]] = {}
    for op in graph.ops:
        if op.op != ts.Op.CAST:
            continue
        source, result = graph.tensors[op.inputs[0]], graph.tensors[op.outputs[0]]
        width = {ts.DType.INT8: 1, ts.DType.INT16: 2}.get(result.dtype)
        if source.dtype != ts.DType.INT32 or width is None:
            continue
        extremum = _through_reshapes(producers, source.name)
        if extremum is None or extremum.op not in (ts.Op.MAXIMUM, ts.Op.MINIMUM):
            continue
        if not all(_widened_from(graph, producers, name, width) for name in extremum.inputs):
            continue
        replacements[id(op)] = _emitted(graph, op.origin, lambda: rescale(graph, source, 1.0, result.dtype, out=result))
    _replace(graph, replacements)
    return len(replacements)


# --- layout and reductions ------------------------------------------------------------------------
def _single_consumer(consumers: dict[str, list[TosaOp]], graph: TosaGraph, name: str) -> TosaOp | None:
    users = consumers.get(name, [])
    return users[0] if len(users) == 1 and name not in graph.outputs else None


def _merged_groups(shape: tuple[int, ...], merged: tuple[int, ...]) -> list[range] | None:
    """For a RESHAPE of ``shape`` into ``merged`` that only merges neighbouring axes: which
    axes of ``shape`` each axis of ``merged`` holds (size-1 axes go anywhere), else None."""
    groups, axis = [], 0
    for size in merged:
        start, product = axis, 1
        while axis < len(shape) and (product < size or (shape[axis] == 1 and product == size and size != 1)):
            product *= shape[axis]
            axis += 1
        if product != size:
            return None
        groups.append(range(start, axis))
    while axis < len(shape) and shape[axis] == 1:
        groups[-1] = range(groups[-1].start, axis + 1) if groups else range(0, 0)
        axis += 1
    return groups if axis == len(shape) else None


# Ethos-U85 sums over non-channel axes slowly when they are long (Vela transposes them
# itself), measured: over 8x8 or 16x16 (or 7x7x256) summing in place beats transposing
# first, over 32x32 and more it loses (64x64x8: 40799 -> 128444 cycles). U55/U65 win at
# every size measured (8x8 to 100x100).
U85_MAX_SPATIAL_SUM = 256
# ... and a whole-image sum beats a unit-weight depthwise convolution up to 32x32x16
# (22059 -> 17980 cycles), not at 7x7x256 or 64x64x8.
U85_MAX_POOLED_VALUES, U85_MAX_POOLED_CHANNELS = 1024, 128


def reductions_without_transposes(graph: TosaGraph, family: str) -> int:
    """TRANSPOSE -> RESHAPE -> REDUCE_SUM -> the same sum over a RESHAPE of the source.

    The layout passes hand a reduction over the spatial axes of a channels-last tensor
    its channels-first view (a mean over dims 2, 3 of NCHW), so a TRANSPOSE precedes the
    sum. A sum does not care in which order it adds, and its result keeps the other
    axes in their order, so when the summed axes sit next to each other in the source
    and the kept ones keep their order, the TRANSPOSE (4 NPU operations on int32) goes.
    """
    consumers, producers = _consumers(graph), _producers(graph)
    replacements: dict[int, list[TosaOp]] = {}
    for op in graph.ops:
        if op.op != ts.Op.REDUCE_SUM:
            continue
        reshape = producers.get(op.inputs[0])
        transpose = producers.get(reshape.inputs[0]) if reshape is not None and reshape.op == ts.Op.RESHAPE else None
        if transpose is None or transpose.op != ts.Op.TRANSPOSE:
            continue
        if _single_consumer(consumers, graph, reshape.outputs[0]) is not op:
            continue
        if _single_consumer(consumers, graph, transpose.outputs[0]) is not reshape:
            continue
        source, moved = graph.tensors[transpose.inputs[0]], graph.tensors[transpose.outputs[0]]
        perm = list(transpose.attr_args[0])
        groups = _merged_groups(moved.shape, graph.tensors[reshape.outputs[0]].shape)
        if groups is None:
            continue
        summed = [perm[a] for a in groups[op.attr_args[0]] if moved.shape[a] != 1]
        kept = [perm[a] for g, group in enumerate(groups) if g != op.attr_args[0] for a in group if moved.shape[a] != 1]
        if not summed or summed != list(range(min(summed), max(summed) + 1)) or kept != sorted(kept):
            continue
        before = int(np.prod(source.shape[: min(summed)], dtype=np.int64))
        total = int(np.prod(source.shape[min(summed) : max(summed) + 1], dtype=np.int64))
        after = int(np.prod(source.shape[max(summed) + 1 :], dtype=np.int64))
        if not npu_rules.is_u55_class(family) and after > 1 and total > U85_MAX_SPATIAL_SUM:
            continue
        result = graph.tensors[op.outputs[0]]

        def build(source=source, shape=(before, total, after), result=result) -> None:
            grouped = graph.reshape(source, shape)
            total_ = graph.emit(ts.Op.REDUCE_SUM, [grouped], (shape[0], 1, shape[2]), result.dtype, 1)
            graph.reshape_into(total_, result)

        replacements[id(transpose)] = []
        replacements[id(reshape)] = []
        replacements[id(op)] = _emitted(graph, op.origin, build)
    _replace(graph, replacements)
    return len(replacements) // 3


def _unit_weights(graph: TosaGraph, op: TosaOp) -> bool:
    weights, bias, weight_zp = (graph.constants.get(name) for name in (op.inputs[1], op.inputs[2], op.inputs[4]))
    if weights is None or bias is None or weight_zp is None:
        return False
    return bool(np.all(weights == 1) and np.all(bias == 0) and np.all(weight_zp == 0))


def global_pools_as_sums(graph: TosaGraph, family: str) -> int:
    """DEPTHWISE_CONV2D of unit weights over the whole image -> RESCALE + REDUCE_SUM.

    The INT lowering sums average-pooling windows with a depthwise convolution of unit
    weights (exact, one rounding). When the window is the whole image that is the sum of
    ``q - zero point`` over height and width: widening once and summing one merged axis
    costs Vela half the cycles on both families (measured: 8x8x32 on U55 3058 -> 1422
    cycles; 25x5x32 on U85 6293 -> 3639), with the same integers.
    """
    from etarm.operators.quantized import rescale  # the operators package imports torch

    replacements: dict[int, list[TosaOp]] = {}
    for op in graph.ops:
        if op.op != ts.Op.DEPTHWISE_CONV2D or not _unit_weights(graph, op):
            continue
        pad, _stride, _dilation = op.attr_args[:3]
        x, acc = graph.tensors[op.inputs[0]], graph.tensors[op.outputs[0]]
        n, h, w, c = x.shape
        if x.dtype != ts.DType.INT8 or any(pad) or _kernel_hw(graph, op) != (h, w) or acc.shape != (n, 1, 1, c):
            continue
        if graph.tensors[op.inputs[1]].shape[3] != 1 or npu_rules.reduce_sum_reason(family, (n, h * w, c), 1):
            continue
        if not npu_rules.is_u55_class(family) and (h * w > U85_MAX_POOLED_VALUES or c > U85_MAX_POOLED_CHANNELS):
            continue
        zero_point = int(graph.constants[op.inputs[3]].reshape(-1)[0])

        def build(x=x, acc=acc, zero_point=zero_point) -> None:
            centred = rescale(graph, x, 1.0, ts.DType.INT32, input_zp=zero_point)
            flat = graph.reshape(centred, (x.shape[0], x.shape[1] * x.shape[2], x.shape[3]))
            total = graph.emit(ts.Op.REDUCE_SUM, [flat], (x.shape[0], 1, x.shape[3]), ts.DType.INT32, 1)
            graph.reshape_into(total, acc)

        replacements[id(op)] = _emitted(graph, op.origin, build)
    _replace(graph, replacements)
    return len(replacements)


def narrow_transposes(graph: TosaGraph, family: str) -> int:
    """TRANSPOSE of a widened (RESCALE/CAST to int32) tensor -> TRANSPOSE first, then widen.

    Moving data costs by the byte (an int32 TRANSPOSE is four NPU operations, measured),
    and a RESCALE right before an ADD/SUB/MUL is what Vela fuses into an int8 elementwise
    operation. Widening is elementwise (per channel only along the last axis, so such a
    RESCALE moves only when the TRANSPOSE keeps the last axis), so the two commute.
    """
    count = 0
    while True:
        consumers, producers = _consumers(graph), _producers(graph)
        replacements: dict[int, list[TosaOp]] = {}
        for op in graph.ops:
            if op.op != ts.Op.TRANSPOSE:
                continue
            widen = producers.get(op.inputs[0])
            if widen is None or widen.op not in (ts.Op.RESCALE, ts.Op.CAST) or id(widen) in replacements:
                continue
            source, wide = graph.tensors[widen.inputs[0]], graph.tensors[widen.outputs[0]]
            if _WIDTH.get(source.dtype, 4) >= _WIDTH.get(wide.dtype, 4) or _single_consumer(consumers, graph, wide.name) is not op:
                continue
            perm = list(op.attr_args[0])
            if widen.op == ts.Op.RESCALE and widen.attr_args[2] and perm[-1] != len(perm) - 1:
                continue  # per-channel parameters follow the last axis
            result = graph.tensors[op.outputs[0]]
            moved = graph.temp(result.shape, source.dtype, stem="moved")
            replacements[id(widen)] = []
            replacements[id(op)] = [
                dataclasses.replace(op, inputs=[source.name], outputs=[moved.name]),
                dataclasses.replace(widen, inputs=[moved.name, *widen.inputs[1:]], outputs=[result.name]),
            ]
        if not replacements:
            return count
        _replace(graph, replacements)
        count += len(replacements) // 2



def trivial_transposes_as_reshapes(graph: TosaGraph, family: str) -> int:
    """A TRANSPOSE that moves only size-1 axes (e.g. NHWC -> NCHW of a 1x1 image) -> RESHAPE.

    The elements keep their order, so a RESHAPE (free for Vela) gives the same tensor.
    """
    count = 0
    for index, op in enumerate(graph.ops):
        if op.op != ts.Op.TRANSPOSE:
            continue
        source = graph.tensors[op.inputs[0]]
        moved = [axis for axis in op.attr_args[0] if source.shape[axis] != 1]
        if moved != sorted(moved):
            continue
        result = graph.tensors[op.outputs[0]]
        graph.ops[index] = TosaOp(ts.Op.RESHAPE, [source.name, graph.shape_const(result.shape).name], [result.name], (), op.origin)
        count += 1
    return count


def _compact_transpose(shape: tuple[int, ...], perm: list[int]) -> tuple[list[int], list[int]] | None:
    """The same TRANSPOSE without size-1 axes and with the axes that move together merged:
    (its input shape, its perm), or None when that leaves the rank as it is."""
    kept = [axis for axis in range(len(shape)) if shape[axis] != 1]
    position = {axis: index for index, axis in enumerate(kept)}
    runs: list[list[int]] = []  # in output order, each a run of consecutive kept input axes
    for axis in perm:
        if shape[axis] == 1:
            continue
        if runs and position[axis] == position[runs[-1][-1]] + 1:
            runs[-1].append(axis)
        else:
            runs.append([axis])
    if len(runs) >= len(shape):
        return None
    by_input = sorted(range(len(runs)), key=lambda run: runs[run][0])
    sizes = [int(np.prod([shape[axis] for axis in runs[run]])) for run in by_input]
    return sizes, [by_input.index(run) for run in range(len(runs))]


def transposes_at_lowest_rank(graph: TosaGraph, family: str) -> int:
    """TRANSPOSE of rank > 4 (U85) -> RESHAPE, the TRANSPOSE without size-1 axes and with the
    axes that move together merged, RESHAPE back.

    Vela for U85 splits a transpose of rank 5 or more into several: torch's multi-head
    attention moving q, k and v to the front of its 1x10x1x3x32 projection took 11937
    cycles, as one 10x3x32 -> 3x10x32 814. Rank-4 ones stay: Vela runs them whole, and
    lowering their rank measured slower (cnn_bn: 10050 -> 21818). On U55/U65 the same
    rewrite alone measured slower (2280 -> 2520 cycles).
    """
    if npu_rules.is_u55_class(family):
        return 0
    replacements: dict[int, list[TosaOp]] = {}
    for op in graph.ops:
        if op.op != ts.Op.TRANSPOSE or graph.tensors[op.inputs[0]].rank <= 4:
            continue
        source, result = graph.tensors[op.inputs[0]], graph.tensors[op.outputs[0]]
        compact = _compact_transpose(tuple(source.shape), list(op.attr_args[0]))
        if compact is None:
            continue
        sizes, perm = compact

        def build(source=source, result=result, sizes=sizes, perm=perm) -> None:
            moved = shapes.transpose(graph, graph.reshape(source, sizes), perm)
            graph.reshape_into(moved, result)

        replacements[id(op)] = _emitted(graph, op.origin, build)
    _replace(graph, replacements)
    return len(replacements)


def sums_in_steps(graph: TosaGraph, family: str) -> int:
    """REDUCE_SUM over more than 2**16 values (U55/U65) -> two REDUCE_SUMs (npu_rules.sum_steps).

    Integer sums are exact in any order, so the axis splits into (outer, inner) parts
    summed one after the other, zero-padded first when its length does not factor so.
    """
    if not npu_rules.is_u55_class(family):
        return 0
    replacements: dict[int, list[TosaOp]] = {}
    for op in graph.ops:
        if op.op != ts.Op.REDUCE_SUM:
            continue
        x, result = graph.tensors[op.inputs[0]], graph.tensors[op.outputs[0]]
        axis = op.attr_args[0]
        steps = npu_rules.sum_steps(x.shape, axis)
        if len(steps) == 1 or any(npu_rules.native_reduce_sum_reason(family, *step) for step in steps):
            continue

        def build(x=x, result=result, axis=axis, steps=steps) -> None:
            (split, inner_axis), (once, outer_axis) = steps
            tensor, padded = x, split[axis] * split[axis + 1]
            if padded != x.shape[axis]:
                amounts = [0] * (2 * x.rank)
                amounts[2 * axis + 1] = padded - x.shape[axis]
                shape = list(x.shape)
                shape[axis] = padded
                zero = graph.const([0], x.dtype, shape=(1,), stem="pad_const")
                tensor = graph.emit(ts.Op.PAD, [x, graph.shape_const(amounts), zero], shape, x.dtype)
            tensor = graph.reshape(tensor, split)
            tensor = graph.emit(ts.Op.REDUCE_SUM, [tensor], once, x.dtype, inner_axis)
            final = list(once)
            final[outer_axis] = 1
            tensor = graph.emit(ts.Op.REDUCE_SUM, [tensor], final, x.dtype, outer_axis)
            graph.reshape_into(tensor, result)

        replacements[id(op)] = _emitted(graph, op.origin, build)
    _replace(graph, replacements)
    return len(replacements)


REWRITES = (
    reductions_without_transposes,
    global_pools_as_sums,
    narrow_transposes,
    trivial_transposes_as_reshapes,
    transposes_at_lowest_rank,
    sums_in_steps,
    pad_strided_convolutions,
    subsample_strided_convolutions,
    pointwise_rows_as_batch,
    pad_strided_max_pools,
    nearest_resizes_as_half_pixel,
    extremum_casts_as_rescales,
)


def rewrite_for_npu(graph: TosaGraph, family: str) -> dict[str, int]:
    """Applies every rewrite; returns how often each one fired (for the report)."""
    counts = {rewrite.__name__: rewrite(graph, family) for rewrite in REWRITES}
    return {name: n for name, n in counts.items() if n}
