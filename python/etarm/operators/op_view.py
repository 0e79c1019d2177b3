"""aten.view (view_copy, _unsafe_view, reshape): TOSA RESHAPE to the result's shape."""

from etarm.lowering import shapes
from etarm.lowering.registry import NodeVisitor, register


@register
class ViewVisitor(NodeVisitor):
    targets = ("aten.view_copy.default", "aten.view.default", "aten._unsafe_view.default", "aten.reshape.default")

    def check(self, node, spec):
        return shapes.layout_reason(node, spec, node.args[0])

    def define(self, node, graph):
        shapes.bind_reshaped(graph, node, graph.value(node.args[0]))
