"""NarrowTransposes (both families): a TRANSPOSE moves before the RESCALE/CAST that widens its input."""

from __future__ import annotations

import dataclasses

import tosa_serializer as ts

from etarm.tosa_ir import graph_edits
from etarm.passes.base import Stage, TosaPass
from etarm.tosa_ir.graph import TosaGraph, TosaOp

_WIDTH = {ts.DType.INT8: 1, ts.DType.INT16: 2, ts.DType.INT32: 4, ts.DType.INT48: 6}


class NarrowTransposes(TosaPass):
    """TRANSPOSE of a widened (RESCALE/CAST to int32) tensor -> TRANSPOSE first, then widen.

    Moving data costs by the byte (an int32 TRANSPOSE is four NPU operations, measured),
    and a RESCALE right before an ADD/SUB/MUL is what Vela fuses into an int8 elementwise
    operation. Widening is elementwise (per channel only along the last axis, so such a
    RESCALE moves only when the TRANSPOSE keeps the last axis), so the two commute.
    """

    stage = Stage.BACKEND

    def run(self, graph: TosaGraph) -> int:
        """Returns the number of moves (a TRANSPOSE moved past two widenings counts twice)."""
        count = 0
        while True:
            consumers, producers = graph_edits.consumers(graph), graph_edits.producers(graph)
            replacements: dict[int, list[TosaOp]] = {}
            for op in graph_edits.ops_of(graph, ts.Op.TRANSPOSE):
                widen = producers.get(op.inputs[0])
                if widen is None or widen.op not in (ts.Op.RESCALE, ts.Op.CAST) or id(widen) in replacements:
                    continue
                source, wide = graph.tensors[widen.inputs[0]], graph.tensors[widen.outputs[0]]
                if _WIDTH.get(source.dtype, 4) >= _WIDTH.get(wide.dtype, 4) or graph_edits.single_consumer(consumers, graph, wide.name) is not op:
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
            graph_edits.replace(graph, replacements)
            count += len(replacements) // 2
