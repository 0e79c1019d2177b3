"""aten.mean: REDUCE_SUM times the constant 1/N (TOSA 1.0 has no division)."""

from etarm.operators.reduction import lower_reduction, reduction_reason
from etarm.operators.registry import NodeVisitor, register
from etarm.operators.tensor_math import argument


@register
class MeanVisitor(NodeVisitor):
    targets = ("aten.mean.dim", "aten.mean.default")
    profiles = frozenset({"FP"})

    def check(self, node, spec):
        return reduction_reason(node, argument(node, 1, "dim"))

    def define(self, node, graph):
        lower_reduction(graph, node, None, argument(node, 1, "dim"))
