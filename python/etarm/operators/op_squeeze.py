"""aten.squeeze (every overload, copy variants included): TOSA RESHAPE to the result's shape."""

from etarm.lowering import shapes
from etarm.lowering.registry import NodeVisitor, register


@register
class SqueezeVisitor(NodeVisitor):
    targets = (
        "aten.squeeze_copy.dims",
        "aten.squeeze_copy.dim",
        "aten.squeeze_copy.default",
        "aten.squeeze.dims",
        "aten.squeeze.dim",
        "aten.squeeze.default",
    )

    def check(self, node, spec):
        return shapes.layout_reason(node, spec, node.args[0])

    def define(self, node, graph):
        shapes.bind_reshaped(graph, node, graph.value(node.args[0]))
