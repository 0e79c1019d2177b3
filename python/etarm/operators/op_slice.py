"""aten.slice (and slice_copy): TOSA SLICE; steps > 1 cut the span and pick one column of a RESHAPE."""

from etarm.lowering import shapes
from etarm.lowering.registry import NodeVisitor, register
from etarm.lowering.tensor_math import argument


def slice_arguments(node):
    """(dim, start, end, step) of a slice-like node: (input, dim, start, end, step)."""
    return (
        argument(node, 1, "dim", 0),
        argument(node, 2, "start", None),
        argument(node, 3, "end", None),
        argument(node, 4, "step", 1),
    )


@register
class SliceVisitor(NodeVisitor):
    targets = ("aten.slice_copy.Tensor", "aten.slice.Tensor")

    def check(self, node, spec):
        rank = shapes.fake(node.args[0]).dim()
        return shapes.slice_reason(rank, *slice_arguments(node)) or shapes.layout_reason(node, spec, node.args[0])

    def define(self, node, graph):
        x = graph.value(node.args[0])
        dim, start, end, step = slice_arguments(node)
        axis = shapes.normalize_dim(dim, x.rank)
        start, count = shapes.slice_bounds(x.shape[axis], start, end, step)
        graph.bind(node, shapes.take_strided(graph, x, axis, start, step, count))
