"""ExtremumCastsAsRescales (Ethos-U55/U65 only): narrow a MAXIMUM/MINIMUM by RESCALE, not CAST."""

from __future__ import annotations

import tosa_serializer as ts

from etarm.tosa_ir import graph_edits
from etarm.lowering.quantized import rescale
from etarm.passes.base import Stage, TosaPass
from etarm.tosa_ir.graph import TosaGraph, TosaOp


class ExtremumCastsAsRescales(TosaPass):
    """int32 -> int8/int16 CAST of a MAXIMUM/MINIMUM of CAST-widened values -> RESCALE by 1.

    TOSA 1.0 has MAXIMUM/MINIMUM for int32 only, so the INT lowering widens the integers,
    compares and narrows back with CAST, which Ethos-U55/U65 do not run. The extremum of
    values of the narrow type is one of them, so a RESCALE by 1 (which saturates where
    CAST would wrap) gives the same integers.
    """

    stage = Stage.BACKEND

    def run(self, graph: TosaGraph) -> int:
        """Returns the number of CASTs replaced."""
        producers = graph_edits.producers(graph)
        replacements: dict[int, list[TosaOp]] = {}
        for op in graph_edits.ops_of(graph, ts.Op.CAST):
            source, result = graph.tensors[op.inputs[0]], graph.tensors[op.outputs[0]]
            width = {ts.DType.INT8: 1, ts.DType.INT16: 2}.get(result.dtype)
            if source.dtype != ts.DType.INT32 or width is None:
                continue
            extremum = _through_reshapes(producers, source.name)
            if extremum is None or extremum.op not in (ts.Op.MAXIMUM, ts.Op.MINIMUM):
                continue
            if not all(_widened_from(graph, producers, name, width) for name in extremum.inputs):
                continue
            replacements[id(op)] = graph_edits.emitted(graph, op.origin, lambda: rescale(graph, source, 1.0, result.dtype, out=result))
        graph_edits.replace(graph, replacements)
        return len(replacements)


def _through_reshapes(producers: dict[str, TosaOp], name: str) -> TosaOp | None:
    """The op writing ``name``, looking through RESHAPEs."""
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
