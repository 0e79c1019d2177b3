"""aten.cumsum: a log-step (Hillis-Steele) scan, as TOSA has no prefix-sum operator.

Step k adds the running sums shifted by 2**k along the axis (SLICE + zero PAD + ADD), so
a length-L axis takes ceil(log2 L) steps. Unlike a matmul with a triangular ones
matrix, no element is multiplied by zero, so inf/NaN stay where torch puts them.
"""

import math

import tosa_serializer as ts

from etarm.operators import tensor_math as tm
from etarm.operators.reduction import at_least_1d, dims_reason, dtype_kwarg_reason, reduced_axes
from etarm.operators.registry import NodeVisitor, register


def _shifted(graph, tensor, shift):
    """``tensor`` ([outer, L, inner]) moved ``shift`` places along axis 1, zero-filled."""
    outer, length, inner = tensor.shape
    head = graph.emit(
        ts.Op.SLICE,
        [tensor, graph.shape_const([0, 0, 0]), graph.shape_const([outer, length - shift, inner])],
        (outer, length - shift, inner),
        tensor.dtype,
    )
    padding = graph.shape_const([0, 0, shift, 0, 0, 0])
    return graph.emit(ts.Op.PAD, [head, padding, tm.scalar(graph, 0.0, tensor.dtype, 1)], tensor.shape, tensor.dtype)


@register
class CumsumVisitor(NodeVisitor):
    targets = ("aten.cumsum.default",)
    profiles = frozenset({"FP"})

    def check(self, node, spec):
        value = node.args[0].meta["val"]
        return tm.float_tensor_reason(value) or dims_reason(node.args[1], value.dim()) or dtype_kwarg_reason(node)

    def define(self, node, graph):
        source = at_least_1d(graph, graph.value(node.args[0]))
        axis = reduced_axes(node.args[1], source.rank)[0]
        length = source.shape[axis]
        scan = graph.reshape(
            tm.widen(graph, source),
            (math.prod(source.shape[:axis]), length, math.prod(source.shape[axis + 1 :])),
        )
        shift = 1
        while shift < length:
            scan = tm.add(graph, scan, _shifted(graph, scan, shift))
            shift *= 2
        tm.bind_result(graph, node, scan)
