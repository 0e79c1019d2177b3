"""aten.repeat (torch.Tensor.repeat / tile): leading size-1 axes by RESHAPE, then TOSA TILE."""

from etarm.lowering import shapes
from etarm.lowering.registry import register


@register
class RepeatVisitor(shapes.LayoutVisitor):
    targets = ("aten.repeat.default",)

    def define(self, node, graph):
        repeats = [int(r) for r in node.args[1]]
        x = graph.to_rank(graph.value(node.args[0]), len(repeats))
        if not repeats:
            graph.bind(node, x)
            return
        graph.bind(node, shapes.tile(graph, x, repeats))
