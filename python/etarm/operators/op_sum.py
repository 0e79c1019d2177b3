"""aten.sum: REDUCE_SUM over each reduced axis (keepdim=False reshapes the kept axes away).

Quantized: REDUCE_SUM of the int32 ``q - zero_point``, then one RESCALE by
``input scale / output scale`` (reduction.lower_quantized_sum).
"""

import tosa_serializer as ts

from etarm.lowering.quantized import is_int_spec, is_quantized
from etarm.lowering.reduction import lower_quantized_sum, lower_reduction, quantized_sum_reason, reduction_reason
from etarm.lowering.registry import NodeVisitor, register
from etarm.lowering.tensor_math import argument


@register
class SumVisitor(NodeVisitor):
    targets = ("aten.sum.dim_IntList", "aten.sum.default")
    profiles = frozenset({"FP", "INT"})
    handles_qparams = True

    def check(self, node, spec):
        dims = argument(node, 1, "dim")
        reason = reduction_reason(node, dims)
        if reason is None and is_int_spec(spec):
            reason = quantized_sum_reason(node, spec, dims)
        return reason

    def define(self, node, graph):
        if is_quantized(node):
            lower_quantized_sum(graph, node, argument(node, 1, "dim"), average=False)
            return
        lower_reduction(graph, node, ts.Op.REDUCE_SUM, argument(node, 1, "dim"))
