"""SubsampleStridedConvolutions (Ethos-U55/U65 only): a depthwise or dilated convolution with a stride above 3."""

from __future__ import annotations

import dataclasses

import tosa_serializer as ts

from etarm.ethosu import npu_rules
from etarm.tosa_ir import graph_edits
from etarm.passes.base import Stage, TosaPass
from etarm.tosa_ir.graph import TosaGraph, TosaOp, TosaTensor


class SubsampleStridedConvolutions(TosaPass):
    """DEPTHWISE_CONV2D (or dilated CONV2D) with a stride above 3 -> stride 1, then subsampling.

    Ethos-U55/U65 run convolution strides up to 3 (an undilated CONV2D also larger ones
    without padding). Output (y, x) of a stride-s convolution is output (s*y, s*x) of the
    same convolution at stride 1, so that is computed (s*s times the work, extended by
    padding on the far side so each strided axis holds whole steps) and every s-th row
    and column kept by RESHAPE + SLICE. Average pooling, which the INT lowering computes
    as a depthwise convolution of unit weights, takes the same path; a window covering the
    whole input (global pooling) costs nothing extra. Subsampling follows the RESCALE the
    convolution feeds when it can (int8 instead of int32 data).
    """

    stage = Stage.BACKEND

    def run(self, graph: TosaGraph) -> int:
        """Returns the number of convolutions rewritten."""
        consumers = graph_edits.consumers(graph)
        replacements: dict[int, list[TosaOp]] = {}
        count = 0
        for op in graph.ops:
            if not _needs_subsampling(op):
                continue
            pad, stride, dilation, *rest = op.attr_args
            x, acc = graph.tensors[op.inputs[0]], graph.tensors[op.outputs[0]]
            kernel = graph_edits.kernel_hw(graph, op)
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

            rescale = graph_edits.single_consumer(consumers, graph, acc.name)
            if rescale is not None and rescale.inputs[0] == acc.name and graph_edits.shape_independent_rescale(graph, rescale):
                result = graph.tensors[rescale.outputs[0]]
                scaled = graph.temp(wide.shape, result.dtype, stem="stride1_scaled")
                moved = dataclasses.replace(rescale, inputs=[wide.name, *rescale.inputs[1:]], outputs=[scaled.name])
                replacements[id(op)] = [conv]
                replacements[id(rescale)] = [moved, *graph_edits.emitted(graph, rescale.origin, lambda: build(scaled, result))]
            else:
                replacements[id(op)] = [conv, *graph_edits.emitted(graph, op.origin, lambda: build(wide, acc))]
        graph_edits.replace(graph, replacements)
        return count


def _needs_subsampling(op: TosaOp) -> bool:
    if op.op not in (ts.Op.CONV2D, ts.Op.DEPTHWISE_CONV2D):
        return False
    _pad_amounts, stride, dilation = op.attr_args[:3]
    if max(stride) <= npu_rules.MAX_NATIVE_STRIDE:
        return False
    # An undilated CONV2D runs such strides natively once unpadded (PadStridedConvolutions).
    return op.op == ts.Op.DEPTHWISE_CONV2D or max(dilation) > 1


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
