"""aten.detach (and detach_copy): no TOSA operator (gradients do not exist at inference)."""

from etarm.lowering import shapes
from etarm.lowering.registry import NodeVisitor, register


@register
class DetachVisitor(NodeVisitor):
    targets = ("aten.detach_copy.default", "aten.detach.default")

    def check(self, node, spec):
        return shapes.alias_reason(shapes.fake(node))

    def define(self, node, graph):
        graph.bind(node, graph.value(node.args[0]))
