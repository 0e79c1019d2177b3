"""RescalesBeforeSlicesAndTiles (Ethos-U55/U65 only): a widening RESCALE of a slice or tile
of a tensor rescales the tensor, then slices or tiles the int32 result."""

from __future__ import annotations

import tosa_serializer as ts

from etarm.passes.base import Stage, TosaPass
from etarm.tosa_ir import graph_edits
from etarm.tosa_ir.graph import TosaGraph, TosaOp, TosaTensor

_MOVING = (ts.Op.SLICE, ts.Op.TILE)
_DATA_MOVEMENT = (*_MOVING, ts.Op.RESHAPE)
_PER_CHANNEL = 2  # RESCALE's attributes: scale32, rounding mode, per_channel, input/output unsigned


class RescalesBeforeSlicesAndTiles(TosaPass):
    """RESCALE to int32 (per tensor) of a SLICE/TILE/RESHAPE chain with a SLICE or TILE in it ->
    the chain applied to the RESCALE of its source. Elementwise and per tensor, the RESCALE
    commutes with moving values.

    Vela 5.2.0 reads a SLICE through the RESCALE after it but writes the RESCALE's output
    with the unsliced height (on the NPU model: y[:, :1] of a 2-row y widened for an addition
    wrote its second row over the first), also through a RESHAPE between them and when the
    slice has other readers (the gru network's steps each widen one frame of the input
    projection three times: each wrote all 8 frames, the last ones past the scratch area), and
    a RESCALE after a TILE of a slice differs the same way. Rescaling first leaves Vela plain
    copies of int32 data, which it compiles right. RESCALEs with the same source and parameters
    share one rescaled source (the steps' slices of one projection), rescaled at rank 4, and
    each gets its own RESHAPE back and copy of the chain: where several SLICEs read a RESCALE's
    result at a rank below 4 (itself or one RESHAPE of it), Vela writes each slice's copy of
    the RESCALE whole into the slice's smaller buffer (a rank-4 result, or a RESHAPE per
    SLICE, it compiles right). The original chain stays only where something else reads it.
    """

    stage = Stage.BACKEND

    def run(self, graph: TosaGraph) -> int:
        """Returns the number of RESCALEs moved."""
        writers = graph_edits.producers(graph)
        replacements: dict[int, list[TosaOp]] = {}
        widened: dict[tuple, TosaTensor] = {}  # (source, RESCALE parameters) -> the rescaled source
        chains: list[TosaOp] = []
        for op in graph_edits.ops_of(graph, ts.Op.RESCALE):
            result = graph.tensors[op.outputs[0]]
            if result.dtype != ts.DType.INT32 or op.attr_args[_PER_CHANNEL]:
                continue
            chain, source = [], op.inputs[0]
            while (writer := writers.get(source)) is not None and writer.op in _DATA_MOVEMENT:
                chain.append(writer)
                source = writer.inputs[0]
            if not any(step.op in _MOVING for step in chain):
                continue
            key = (source, self._parameters(graph, op))

            def build(op=op, chain=chain, key=key, result=result):
                source = graph.tensors[key[0]]
                if key not in widened:
                    four_d = (
                        graph.reshape(source, (1,) * (4 - source.rank) + source.shape) if source.rank < 4 else source
                    )
                    rescaled = graph.temp(four_d.shape, result.dtype, stem="widened")
                    graph.op(
                        ts.Op.RESCALE, [four_d, *(graph.tensors[n] for n in op.inputs[1:])], [rescaled], *op.attr_args
                    )
                    widened[key] = rescaled
                moved = widened[key]
                if moved.shape != source.shape:
                    moved = graph.reshape(moved, source.shape)
                for step in reversed(chain):
                    out = result if step is chain[0] else graph.temp(graph.tensors[step.outputs[0]].shape, result.dtype)
                    graph.op(step.op, [moved, *(graph.tensors[n] for n in step.inputs[1:])], [out], *step.attr_args)
                    moved = out

            replacements[id(op)] = graph_edits.emitted(graph, op.origin, build)
            chains.extend(chain)
        graph_edits.replace(graph, replacements)
        self._drop_unread(graph, chains)
        return len(replacements)

    @staticmethod
    def _parameters(graph: TosaGraph, op: TosaOp) -> tuple:
        """What makes two RESCALEs of one tensor compute the same: their attributes and the
        values of their constant operands (each lowered step has its own constant tensors)."""
        values = []
        for name in op.inputs[1:]:
            data = graph.constants.get(name)
            values.append(name if data is None else (str(data.dtype), data.shape, data.tobytes()))
        return (*op.attr_args, *values)

    @staticmethod
    def _drop_unread(graph: TosaGraph, chain_ops: list[TosaOp]) -> None:
        """Removes the original chain links nothing reads any more (latest first, so a link
        whose only reader was a dropped link goes too)."""
        dropped: set[int] = set()
        readers = graph_edits.consumers(graph)
        for step in sorted({id(s): s for s in chain_ops}.values(), key=graph.ops.index, reverse=True):
            out = step.outputs[0]
            if out in graph.outputs or any(id(r) not in dropped for r in readers.get(out, [])):
                continue
            dropped.add(id(step))
        graph_edits.replace(graph, {i: [] for i in dropped})
