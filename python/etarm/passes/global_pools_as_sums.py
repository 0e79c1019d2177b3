"""GlobalPoolsAsSums: a whole-image average pool's window sum as one REDUCE_SUM."""

from __future__ import annotations

import numpy as np
import tosa_serializer as ts

from etarm.lowering.quantized import rescale
from etarm.passes.base import Stage, TosaPass
from etarm.tosa_ir import graph_edits
from etarm.tosa_ir.graph import TosaGraph, TosaOp


class GlobalPoolsAsSums(TosaPass):
    """DEPTHWISE_CONV2D of unit weights over the whole image -> RESCALE + REDUCE_SUM.

    The INT lowering sums average-pooling windows with a depthwise convolution of unit
    weights (exact, one rounding). When the window is the whole image that is the sum of
    ``q - zero point`` over height and width: widening once and summing one merged axis gives
    the same integers without the weights (h * w * c bytes in the payload). Backends whose
    compiler favours one form by shape override ``pays_off``.
    """

    stage = Stage.BACKEND

    def pays_off(self, shape: tuple[int, int, int, int]) -> bool:
        """Whether to rewrite the pool of an NHWC input of ``shape``."""
        return True

    def run(self, graph: TosaGraph) -> int:
        """Returns the number of pools rewritten."""
        replacements: dict[int, list[TosaOp]] = {}
        for op in graph.ops:
            if op.op != ts.Op.DEPTHWISE_CONV2D or not _unit_weights(graph, op):
                continue
            pad, _stride, _dilation = op.attr_args[:3]
            x, acc = graph.tensors[op.inputs[0]], graph.tensors[op.outputs[0]]
            n, h, w, c = x.shape
            if (
                x.dtype != ts.DType.INT8
                or any(pad)
                or graph_edits.kernel_hw(graph, op) != (h, w)
                or acc.shape != (n, 1, 1, c)
            ):
                continue
            if graph.tensors[op.inputs[1]].shape[3] != 1 or not self.pays_off((n, h, w, c)):
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
