"""aten.sub: TOSA SUB (``alpha * other`` is a MUL first)."""

import tosa_serializer as ts

from etarm.operators.elementwise import binary, times_alpha
from etarm.operators.registry import NodeVisitor, register


@register
class SubVisitor(NodeVisitor):
    targets = ("aten.sub.Tensor", "aten.sub.Scalar")

    def define(self, node, graph):
        other = times_alpha(graph, node, node.args[1], node.kwargs.get("alpha", 1))
        binary(graph, node, ts.Op.SUB, node.args[0], other, graph.out(node))
