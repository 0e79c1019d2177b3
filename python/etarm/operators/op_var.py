"""aten.var: two-pass variance (mean, squared deviations, REDUCE_SUM, times 1/(N - correction)).

Quantized (INT): exact integer deviations N x - sum(x), their squares summed on int32 and
one RESCALE into the output (normalization.lower_quantized_variance).
"""

from etarm.lowering.normalization import lower_quantized_variance_node, quantized_variance_reason
from etarm.lowering.quantized import is_int_spec, is_quantized
from etarm.lowering.reduction import lower_variance, variance_reason
from etarm.lowering.registry import NodeVisitor, register


@register
class VarVisitor(NodeVisitor):
    targets = ("aten.var.correction",)
    profiles = frozenset({"FP", "INT"})
    handles_qparams = True

    def check(self, node, spec):
        reason = variance_reason(node)
        if reason is None and is_int_spec(spec):
            reason = quantized_variance_reason(node)
        return reason

    def define(self, node, graph):
        if is_quantized(node):
            lower_quantized_variance_node(graph, node, root=False)
            return
        lower_variance(graph, node, root=False)
