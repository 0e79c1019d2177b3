"""RescalesBeforeSlicesAndTiles (Ethos-U55/U65 only): a widening RESCALE of a slice or tile
of a tensor rescales the tensor, then slices or tiles the int32 result."""

from __future__ import annotations

import tosa_serializer as ts

from etarm.passes.base import Stage, TosaPass
from etarm.tosa_ir import graph_edits
from etarm.tosa_ir.graph import TosaGraph, TosaOp

_DATA_MOVEMENT = (ts.Op.SLICE, ts.Op.TILE)
_PER_CHANNEL = 2  # RESCALE's attributes: scale32, rounding mode, per_channel, input/output unsigned


class RescalesBeforeSlicesAndTiles(TosaPass):
    """RESCALE to int32 (per tensor) of SLICE/TILE chains, each read only by the next ->
    the chain applied to the RESCALE of its source. Elementwise and per tensor, the RESCALE
    commutes with moving values.

    Vela 5.2.0 reads a SLICE through the RESCALE after it but writes the RESCALE's output
    with the unsliced height (on the NPU model: y[:, :1] of a 2-row y widened for an addition
    wrote its second row over the first), and a RESCALE after a TILE of a slice differs the
    same way. Rescaling first leaves Vela plain copies of int32 data, which it compiles right.
    """

    stage = Stage.BACKEND

    def run(self, graph: TosaGraph) -> int:
        """Returns the number of RESCALEs moved."""
        readers, writers = graph_edits.consumers(graph), graph_edits.producers(graph)
        replacements: dict[int, list[TosaOp]] = {}
        moved = 0
        for op in graph_edits.ops_of(graph, ts.Op.RESCALE):
            result = graph.tensors[op.outputs[0]]
            if result.dtype != ts.DType.INT32 or op.attr_args[_PER_CHANNEL]:
                continue
            chain, source, reader = [], op.inputs[0], op
            while (writer := writers.get(source)) is not None and writer.op in _DATA_MOVEMENT:
                if graph_edits.single_consumer(readers, graph, source) is not reader:
                    break
                chain.append(writer)
                source, reader = writer.inputs[0], writer
            if not chain:
                continue

            def build(op=op, chain=chain, source=source, result=result):
                moved = graph.tensors[source]
                widened = graph.temp(moved.shape, result.dtype, stem="widened")
                graph.op(ts.Op.RESCALE, [moved, *(graph.tensors[n] for n in op.inputs[1:])], [widened], *op.attr_args)
                for step in reversed(chain):
                    last = step is chain[0]
                    out = result if last else graph.temp(graph.tensors[step.outputs[0]].shape, result.dtype)
                    graph.op(step.op, [widened, *(graph.tensors[n] for n in step.inputs[1:])], [out], *step.attr_args)
                    widened = out

            replacements.update({id(step): [] for step in chain})
            replacements[id(op)] = graph_edits.emitted(graph, op.origin, build)
            moved += 1
        graph_edits.replace(graph, replacements)
        return moved
