"""aten.permute (and permute_copy; transpose, t and movedim decompose to it): TOSA TRANSPOSE."""

from etarm.lowering import shapes
from etarm.lowering.registry import NodeVisitor, register


@register
class PermuteVisitor(NodeVisitor):
    targets = ("aten.permute_copy.default", "aten.permute.default")

    def check(self, node, spec):
        return shapes.layout_reason(node, spec, node.args[0])

    def define(self, node, graph):
        x = graph.value(node.args[0])
        graph.bind(node, graph.transpose(x, shapes.normalize_dims(node.args[1], x.rank)))
