"""aten.bmm: TOSA MATMUL directly ([B, M, K] x [B, K, N])."""

from etarm.operators import tensor_math as tm
from etarm.operators.matmul import batched_matmul, operands_reason
from etarm.operators.registry import NodeVisitor, register


@register
class BmmVisitor(NodeVisitor):
    targets = ("aten.bmm.default",)
    profiles = frozenset({"FP"})

    def check(self, node, spec):
        return operands_reason(node, [("self", node.args[0]), ("mat2", node.args[1])], ranks=(3,))

    def define(self, node, graph):
        tm.bind_result(graph, node, batched_matmul(graph, graph.value(node.args[0]), graph.value(node.args[1])))
