"""aten._log_softmax: (x - max) - log(sum(exp(x - max)))."""

from etarm.operators.reduction import lower_softmax, softmax_reason
from etarm.operators.registry import NodeVisitor, register


@register
class LogSoftmaxVisitor(NodeVisitor):
    targets = ("aten._log_softmax.default",)
    profiles = frozenset({"FP"})

    def check(self, node, spec):
        return softmax_reason(node)

    def define(self, node, graph):
        lower_softmax(graph, node, log=True)
