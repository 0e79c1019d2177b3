"""aten.mul: TOSA MUL with a zero shift."""

import tosa_serializer as ts

from etarm.operators.elementwise import binary
from etarm.operators.registry import NodeVisitor, register


@register
class MulVisitor(NodeVisitor):
    targets = ("aten.mul.Tensor", "aten.mul.Scalar")

    def define(self, node, graph):
        binary(graph, node, ts.Op.MUL, node.args[0], node.args[1], graph.out(node))
