"""aten.expand (and expand_copy): leading size-1 axes by RESHAPE, then TOSA TILE of the size-1 axes."""

from etarm.lowering import shapes
from etarm.lowering.registry import register


@register
class ExpandVisitor(shapes.LayoutVisitor):
    targets = ("aten.expand_copy.default", "aten.expand.default")

    def define(self, node, graph):
        out_shape = tuple(shapes.fake(node).shape)
        x = graph.to_rank(graph.value(node.args[0]), len(out_shape))
        if not out_shape:
            graph.bind(node, x)
            return
        multiples = [o if d == 1 else 1 for d, o in zip(x.shape, out_shape)]
        graph.bind(node, shapes.tile(graph, x, multiples))
