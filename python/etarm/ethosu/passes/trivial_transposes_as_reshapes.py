"""TrivialTransposesAsReshapes (both families): a TRANSPOSE that keeps the element order is a RESHAPE."""

from __future__ import annotations

import tosa_serializer as ts

from etarm.passes.base import Stage, TosaPass
from etarm.tosa_ir.graph import TosaGraph, TosaOp


class TrivialTransposesAsReshapes(TosaPass):
    """A TRANSPOSE that moves only size-1 axes (e.g. NHWC -> NCHW of a 1x1 image) -> RESHAPE.

    The elements keep their order, so a RESHAPE (free for Vela) gives the same tensor.
    """

    stage = Stage.BACKEND

    def run(self, graph: TosaGraph) -> int:
        """Returns the number of TRANSPOSEs replaced."""
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
