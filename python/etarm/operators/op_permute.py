"""aten.permute (and permute_copy; transpose, t and movedim decompose to it): TOSA TRANSPOSE."""

from etarm.lowering import shapes
from etarm.lowering.registry import register


@register
class PermuteVisitor(shapes.LayoutVisitor):
    targets = ("aten.permute_copy.default", "aten.permute.default")

    def define(self, node, graph):
        x = graph.value(node.args[0])
        graph.bind(node, graph.transpose(x, shapes.normalize_dims(node.args[1], x.rank)))
