"""aten.addmm: beta * self + alpha * (mat1 @ mat2); MATMUL, then MULs only for beta/alpha != 1."""

import numbers

from etarm.operators import tensor_math as tm
from etarm.operators.matmul import batched_matmul, operands_reason
from etarm.operators.registry import NodeVisitor, register


@register
class AddmmVisitor(NodeVisitor):
    targets = ("aten.addmm.default",)
    profiles = frozenset({"FP"})

    def check(self, node, spec):
        for name in ("beta", "alpha"):
            if not isinstance(node.kwargs.get(name, 1), numbers.Real):
                return f"{name}={node.kwargs[name]!r} is not a real scalar"
        operands = [("self", node.args[0]), ("mat1", node.args[1]), ("mat2", node.args[2])]
        reason = operands_reason(node, operands[1:], ranks=(2,))
        return reason or operands_reason(node, operands, ranks=(0, 1, 2))

    def define(self, node, graph):
        beta, alpha = node.kwargs.get("beta", 1), node.kwargs.get("alpha", 1)
        product = batched_matmul(graph, graph.value(node.args[1]), graph.value(node.args[2]))
        result = tm.scale(graph, product, alpha)
        if beta != 0:  # torch ignores self (even NaN/inf in it) when beta is 0
            result = tm.add(graph, result, tm.scale(graph, graph.value(node.args[0]), beta))
        tm.bind_result(graph, node, result)
