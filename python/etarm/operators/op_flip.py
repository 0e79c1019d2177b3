"""aten.flip: one TOSA REVERSE per flipped axis."""

from etarm.lowering import shapes
from etarm.lowering.dtype_rules import EXTENSION_FLOATS
from etarm.lowering.registry import NodeVisitor, register


@register
class FlipVisitor(NodeVisitor):
    targets = ("aten.flip.default",)
    extension_floats = EXTENSION_FLOATS

    def check(self, node, spec):
        rank = shapes.fake(node.args[0]).dim()
        for d in node.args[1]:
            reason = shapes.dim_reason(d, rank)
            if reason:
                return reason
        return shapes.layout_reason(node, spec, node.args[0])

    def define(self, node, graph):
        x = graph.value(node.args[0])
        for axis in sorted(set(shapes.normalize_dims(node.args[1], x.rank))):
            x = shapes.reverse(graph, x, axis)
        graph.bind(node, x)
