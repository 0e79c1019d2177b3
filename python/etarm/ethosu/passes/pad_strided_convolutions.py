"""PadStridedConvolutions (Ethos-U55/U65 only): a padded CONV2D with a stride above 3."""

from __future__ import annotations

import dataclasses

import numpy as np
import tosa_serializer as ts

from etarm.ethosu import npu_rules
from etarm.passes.base import Stage, TosaPass
from etarm.tosa_ir.graph import TosaGraph, TosaOp


class PadStridedConvolutions(TosaPass):
    """CONV2D with a stride above 3 and padding -> explicit padding, then CONV2D without.

    Ethos-U55/U65 run strides above 3 only without padding (and dilation 1). TOSA
    convolution padding contributes 0 once the input zero point is subtracted, so
    padding the input with the zero point first computes the same. The padding is a
    PAD when the zero point is non-zero, and a CONCAT of constant zero blocks when it is
    0: Vela folds a PAD of zeros back into the convolution (measured), which it then
    cannot run.
    """

    stage = Stage.BACKEND

    def run(self, graph: TosaGraph) -> int:
        """Returns the number of convolutions rewritten."""
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
