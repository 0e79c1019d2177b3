"""aten.unsqueeze (and unsqueeze_copy): TOSA RESHAPE to the result's shape."""

from etarm.lowering import shapes
from etarm.lowering.registry import NodeVisitor, register


@register
class UnsqueezeVisitor(NodeVisitor):
    targets = ("aten.unsqueeze_copy.default", "aten.unsqueeze.default")

    def check(self, node, spec):
        return shapes.layout_reason(node, spec, node.args[0])

    def define(self, node, graph):
        shapes.bind_reshaped(graph, node, graph.value(node.args[0]))
