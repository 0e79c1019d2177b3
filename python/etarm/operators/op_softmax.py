"""aten._softmax: exp(x - max) times the RECIPROCAL of its sum (TOSA 1.0 has no division)."""

from etarm.operators.reduction import lower_softmax, softmax_reason
from etarm.operators.registry import NodeVisitor, register


@register
class SoftmaxVisitor(NodeVisitor):
    targets = ("aten._softmax.default",)
    profiles = frozenset({"FP"})

    def check(self, node, spec):
        return softmax_reason(node)

    def define(self, node, graph):
        lower_softmax(graph, node, log=False)
