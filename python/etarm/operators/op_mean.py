"""aten.mean: REDUCE_SUM times the constant 1/N (TOSA 1.0 has no division).

Quantized: REDUCE_SUM of the int32 ``q - zero_point``, then one RESCALE by
``input scale / (N * output scale)`` (reduction.lower_quantized_sum).
"""

from etarm.lowering.quantized import is_int_spec, is_quantized
from etarm.lowering.reduction import lower_quantized_sum, lower_reduction, quantized_sum_reason, reduction_reason
from etarm.lowering.registry import NodeVisitor, register
from etarm.lowering.tensor_math import argument


@register
class MeanVisitor(NodeVisitor):
    targets = ("aten.mean.dim", "aten.mean.default")
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
            lower_quantized_sum(graph, node, argument(node, 1, "dim"), average=True)
            return
        lower_reduction(graph, node, None, argument(node, 1, "dim"))
