"""aten.var: two-pass variance (mean, squared deviations, REDUCE_SUM, times 1/(N - correction))."""

from etarm.operators.reduction import lower_variance, variance_reason
from etarm.operators.registry import NodeVisitor, register


@register
class VarVisitor(NodeVisitor):
    targets = ("aten.var.correction",)
    profiles = frozenset({"FP"})

    def check(self, node, spec):
        return variance_reason(node)

    def define(self, node, graph):
        lower_variance(graph, node, root=False)
