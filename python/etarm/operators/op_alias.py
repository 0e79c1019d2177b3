"""aten.alias (and alias_copy; detach becomes alias_copy in edge graphs): no TOSA operator."""

from etarm.lowering import shapes
from etarm.lowering.registry import NodeVisitor, register


@register
class AliasVisitor(NodeVisitor):
    targets = ("aten.alias_copy.default", "aten.alias.default")

    def check(self, node, spec):
        return shapes.alias_reason(shapes.fake(node))

    def define(self, node, graph):
        graph.bind(node, graph.value(node.args[0]))
