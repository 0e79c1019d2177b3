"""MinimaAsComplementedMaxima (Ethos-U55/U65 only): an int8 min-reduction whose result is
reshaped becomes a max-reduction between two complementing table lookups."""

from __future__ import annotations

import numpy as np
import tosa_serializer as ts

from etarm.passes.base import Stage, TosaPass
from etarm.tosa_ir import graph_edits
from etarm.tosa_ir.graph import TosaGraph, TosaTensor

I8 = ts.DType.INT8
# The bitwise complement -1 - x, indexed by x + 128: exact over all of int8 (-128 <-> 127).
_COMPLEMENT = -1 - np.arange(-128, 128)


def _complemented(graph: TosaGraph, tensor: TosaTensor, out: TosaTensor) -> TosaTensor:
    graph.op(ts.Op.TABLE, [tensor, graph.const(_COMPLEMENT, I8, stem="complement")], [out])
    return out


class MinimaAsComplementedMaxima(TosaPass):
    """int8 REDUCE_MIN(x) read by a RESHAPE -> TABLE(REDUCE_MAX(TABLE(x))), the tables
    complementing (-1 - x), since min(x) = -1 - max(-1 - x).

    Vela 5.2.0 rewrites REDUCE_MIN as SUB -> REDUCE_MAX -> SUB; when a RESHAPE that drops the
    reduced axis follows, it gives the final SUB the reshaped output shape but reads the maxima
    in their unreshaped one, so (on the NPU model) every row repeats one value. Vela compiles
    a max-reduction followed by a RESHAPE correctly, and a table lookup costs about what its
    SUBs cost.
    """

    stage = Stage.BACKEND

    def run(self, graph: TosaGraph) -> int:
        """Returns the number of min-reductions replaced."""
        readers = graph_edits.consumers(graph)
        replacements = {}
        for op in graph_edits.ops_of(graph, ts.Op.REDUCE_MIN):
            value, result = graph.tensors[op.inputs[0]], graph.tensors[op.outputs[0]]
            reader = graph_edits.single_consumer(readers, graph, result.name)
            if value.dtype != I8 or reader is None or reader.op != ts.Op.RESHAPE:
                continue

            def build(value=value, result=result, attributes=op.attr_args):
                complemented = _complemented(graph, value, graph.temp(value.shape, I8, stem="complemented"))
                maxima = graph.emit(ts.Op.REDUCE_MAX, [complemented], result.shape, I8, *attributes)
                _complemented(graph, maxima, result)

            replacements[id(op)] = graph_edits.emitted(graph, op.origin, build)
        graph_edits.replace(graph, replacements)
        return len(replacements)
