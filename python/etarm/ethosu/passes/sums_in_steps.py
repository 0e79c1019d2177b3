"""SumsInSteps (Ethos-U55/U65 only): a REDUCE_SUM over more than 2**16 values in two steps."""

from __future__ import annotations

import tosa_serializer as ts

from etarm.ethosu import npu_rules
from etarm.tosa_ir import graph_edits
from etarm.passes.base import Stage, TosaPass
from etarm.tosa_ir.graph import TosaGraph, TosaOp

# The pipeline runs this pass for Ethos-U55/U65 only, which share one REDUCE_SUM rule.
_FAMILY = "u55"


class SumsInSteps(TosaPass):
    """REDUCE_SUM over more than 2**16 values -> two REDUCE_SUMs (npu_rules.sum_steps).

    Ethos-U55/U65 sum at most 2**16 values at once. Integer sums are exact in any order,
    so the axis splits into (outer, inner) parts summed one after the other, zero-padded
    first when its length does not factor so.
    """

    stage = Stage.BACKEND

    def run(self, graph: TosaGraph) -> int:
        """Returns the number of sums split."""
        replacements: dict[int, list[TosaOp]] = {}
        for op in graph_edits.ops_of(graph, ts.Op.REDUCE_SUM):
            x, result = graph.tensors[op.inputs[0]], graph.tensors[op.outputs[0]]
            axis = op.attr_args[0]
            steps = npu_rules.sum_steps(x.shape, axis)
            if len(steps) == 1 or any(npu_rules.native_reduce_sum_reason(_FAMILY, *step) for step in steps):
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

            replacements[id(op)] = graph_edits.emitted(graph, op.origin, build)
        graph_edits.replace(graph, replacements)
        return len(replacements)
