"""GlobalPoolsAsSums (both families; the family sets which pools pay off and which sums run)."""

from __future__ import annotations

import numpy as np
import tosa_serializer as ts

from etarm.ethosu import npu_rules
from etarm.ethosu.passes import graph_edits
from etarm.lowering.quantized import rescale
from etarm.passes.base import Stage, TosaPass
from etarm.tosa_ir.graph import TosaGraph, TosaOp

# On Ethos-U85 a whole-image sum beats a unit-weight depthwise convolution up to 32x32x16
# (22059 -> 17980 cycles), not at 7x7x256 or 64x64x8.
U85_MAX_POOLED_VALUES, U85_MAX_POOLED_CHANNELS = 1024, 128


class GlobalPoolsAsSums(TosaPass):
    """DEPTHWISE_CONV2D of unit weights over the whole image -> RESCALE + REDUCE_SUM.

    The INT lowering sums average-pooling windows with a depthwise convolution of unit
    weights (exact, one rounding). When the window is the whole image that is the sum of
    ``q - zero point`` over height and width: widening once and summing one merged axis
    costs Vela half the cycles on both families (measured: 8x8x32 on U55 3058 -> 1422
    cycles; 25x5x32 on U85 6293 -> 3639), with the same integers.
    """

    stage = Stage.BACKEND

    def __init__(self, family: str):
        """``family``: the Vela family key (``u55``, ``u65``, ``u85``)."""
        self.family = family

    def run(self, graph: TosaGraph) -> int:
        """Returns the number of pools rewritten."""
        replacements: dict[int, list[TosaOp]] = {}
        for op in graph.ops:
            if op.op != ts.Op.DEPTHWISE_CONV2D or not _unit_weights(graph, op):
                continue
            pad, _stride, _dilation = op.attr_args[:3]
            x, acc = graph.tensors[op.inputs[0]], graph.tensors[op.outputs[0]]
            n, h, w, c = x.shape
            if x.dtype != ts.DType.INT8 or any(pad) or graph_edits.kernel_hw(graph, op) != (h, w) or acc.shape != (n, 1, 1, c):
                continue
            if graph.tensors[op.inputs[1]].shape[3] != 1 or npu_rules.reduce_sum_reason(self.family, (n, h * w, c), 1):
                continue
            if not npu_rules.is_u55_class(self.family) and (h * w > U85_MAX_POOLED_VALUES or c > U85_MAX_POOLED_CHANNELS):
                continue
            zero_point = int(graph.constants[op.inputs[3]].reshape(-1)[0])

            def build(x=x, acc=acc, zero_point=zero_point) -> None:
                centred = rescale(graph, x, 1.0, ts.DType.INT32, input_zp=zero_point)
                flat = graph.reshape(centred, (x.shape[0], x.shape[1] * x.shape[2], x.shape[3]))
                total = graph.emit(ts.Op.REDUCE_SUM, [flat], (x.shape[0], 1, x.shape[3]), ts.DType.INT32, 1)
                graph.reshape_into(total, acc)

            replacements[id(op)] = graph_edits.emitted(graph, op.origin, build)
        graph_edits.replace(graph, replacements)
        return len(replacements)


def _unit_weights(graph: TosaGraph, op: TosaOp) -> bool:
    weights, bias, weight_zp = (graph.constants.get(name) for name in (op.inputs[1], op.inputs[2], op.inputs[4]))
    if weights is None or bias is None or weight_zp is None:
        return False
    return bool(np.all(weights == 1) and np.all(bias == 0) and np.all(weight_zp == 0))
