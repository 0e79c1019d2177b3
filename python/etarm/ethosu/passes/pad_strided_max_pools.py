"""PadStridedMaxPools (Ethos-U55/U65 and U85): a padded MAX_POOL2D with a stride above 3."""

from __future__ import annotations

import dataclasses

import tosa_serializer as ts

from etarm.ethosu import npu_rules
from etarm.tosa_ir import graph_edits
from etarm.passes.base import Stage, TosaPass
from etarm.tosa_ir.graph import TosaGraph, TosaOp

_LOWEST = {ts.DType.INT8: -128, ts.DType.INT16: -32768, ts.DType.INT32: -(1 << 31)}


class PadStridedMaxPools(TosaPass):
    """MAX_POOL2D with a stride above 3 and padding -> PAD with the lowest value, then no padding.

    MAX_POOL2D never picks its padding; a PAD with the type's lowest value is never picked
    over a real element either (every window holds one), so the results are the same.
    U55/U65 run such a pool only unpadded; on U85, Vela 5.2.0 splits it into one 1x1 pool per
    window tap and drops the padding (every tap reads from row and column 0).
    """

    stage = Stage.BACKEND

    def run(self, graph: TosaGraph) -> int:
        """Returns the number of max pools rewritten."""
        replacements: dict[int, list[TosaOp]] = {}
        for op in graph_edits.ops_of(graph, ts.Op.MAX_POOL2D):
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
        graph_edits.replace(graph, replacements)
        return len(replacements)
