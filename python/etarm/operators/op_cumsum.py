"""aten.cumsum: a log-step (Hillis-Steele) scan, as TOSA has no prefix-sum operator.

Step k adds the running sums shifted by 2**k along the axis (SLICE + zero PAD + ADD), so
a length-L axis takes ceil(log2 L) steps. Unlike a matmul with a triangular ones
matrix, no element is multiplied by zero, so inf/NaN stay where torch puts them.

Quantized: the same scan over the int32 ``q - zero_point`` (exact: the check bounds L),
then one RESCALE by ``input scale / output scale``.
"""

import math

import tosa_serializer as ts

from etarm.lowering import integer_sums
from etarm.lowering import tensor_math as tm
from etarm.lowering.quantized import FloatAndQuantizedVisitor, input_qparams, write_int32_result
from etarm.lowering.reduction import at_least_1d, reduced_axes, reduction_reason
from etarm.lowering.registry import register


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
    return graph.emit(ts.Op.PAD, [head, padding, tm.scalar(graph, 0, tensor.dtype, 1)], tensor.shape, tensor.dtype)


def _prefix_sums(graph, source, axis):
    """Running sums of ``source`` along ``axis``, as [outer, L, inner]."""
    length = source.shape[axis]
    scan = graph.reshape(source, (math.prod(source.shape[:axis]), length, math.prod(source.shape[axis + 1 :])))
    shift = 1
    while shift < length:
        scan = tm.add(graph, scan, _shifted(graph, scan, shift))
        shift *= 2
    return scan


def _scanned_input(graph, node):
    """The input (at least 1-D) and the axis its sums run along."""
    source = at_least_1d(graph, graph.value(node.args[0]))
    return source, reduced_axes(node.args[1], source.rank)[0]


@register
class CumsumVisitor(FloatAndQuantizedVisitor):
    targets = ("aten.cumsum.default",)

    def float_reason(self, node, spec):
        return reduction_reason(node, node.args[1])

    def quantized_reason(self, node, spec):
        value = node.args[0].meta["val"]
        length = value.shape[reduced_axes(node.args[1], value.dim())[0]] if value.dim() else 1
        return integer_sums.int16_zero_point_reason(node) or integer_sums.sum_reason(node, spec, length, "cumsum")

    def define_float(self, node, graph):
        source, axis = _scanned_input(graph, node)
        tm.bind_result(graph, node, _prefix_sums(graph, tm.widen(graph, source), axis))

    def define_quantized(self, node, graph):
        source, axis = _scanned_input(graph, node)
        qparams = input_qparams(node, 0)
        centred = integer_sums.centred_int32(graph, source, int(qparams.zero_point))
        write_int32_result(graph, node, _prefix_sums(graph, centred, axis), float(qparams.scale))
