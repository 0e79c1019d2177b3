"""FloorShiftsAsRoundedShifts (Ethos-U55/U65 only): a right shift that floors becomes one that rounds."""

from __future__ import annotations

import numpy as np
import tosa_serializer as ts

from etarm.passes.base import Stage, TosaPass
from etarm.tosa_ir import graph_edits
from etarm.tosa_ir.graph import TosaGraph

I32 = ts.DType.INT32


class FloorShiftsAsRoundedShifts(TosaPass):
    """int32 ARITHMETIC_RIGHT_SHIFT(x, s) without rounding, by a constant s ->
    ARITHMETIC_RIGHT_SHIFT(x - 2**(s-1), s) with rounding (half up), which is floor(x / 2**s).

    The U55/U65 command set has no flooring mode for SHR (U85's TRUNCATE_TO_LOWER): Vela 5.2.0
    gives such a shift the DBL rounding mode, which rounds to nearest, so the NPU model (and
    the NPU) would compute x / 2**s rounded instead of floored. Within 2**(s-1) of the int32
    minimum the subtraction saturates on the NPU: the result, -2**(31-s), is still the floor.
    """

    stage = Stage.BACKEND

    def run(self, graph: TosaGraph) -> int:
        """Returns the number of shifts replaced."""
        replacements = {}
        for op in graph_edits.ops_of(graph, ts.Op.ARITHMETIC_RIGHT_SHIFT):
            value, amount, result = (graph.tensors[name] for name in (*op.inputs, *op.outputs))
            shifts = graph.constant_data(amount)
            if op.attr_args[0] or value.dtype != I32 or shifts is None or not np.any(shifts):
                continue
            half = np.where(shifts > 0, np.left_shift(1, np.maximum(shifts.astype(np.int64) - 1, 0)), 0)

            def build(value=value, amount=amount, result=result, half=half):
                lowered = graph.binary(ts.Op.SUB, value, graph.const(half, I32, stem="half_step"))
                graph.binary(ts.Op.ARITHMETIC_RIGHT_SHIFT, lowered, amount, I32, True, out=result)

            replacements[id(op)] = graph_edits.emitted(graph, op.origin, build)
        graph_edits.replace(graph, replacements)
        return len(replacements)
