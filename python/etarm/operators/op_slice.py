"""aten.slice (and slice_copy): TOSA SLICE; steps > 1 cut the span and pick one column of a RESHAPE."""

from etarm.lowering import shapes
from etarm.lowering.dtype_rules import EXTENSION_FLOATS
from etarm.lowering.registry import NodeVisitor, register


@register
class SliceVisitor(NodeVisitor):
    targets = ("aten.slice_copy.Tensor", "aten.slice.Tensor")
    extension_floats = EXTENSION_FLOATS

    def check(self, node, spec):
        rank = shapes.fake(node.args[0]).dim()
        reason = shapes.slice_reason(rank, *shapes.slice_arguments(node, 1))
        return reason or shapes.layout_reason(node, spec, node.args[0])

    def define(self, node, graph):
        x = graph.value(node.args[0])
        dim, start, end, step = shapes.slice_arguments(node, 1)
        axis = shapes.normalize_dim(dim, x.rank)
        start, count = shapes.slice_bounds(x.shape[axis], start, end, step)
        graph.bind(node, shapes.take_strided(graph, x, axis, start, step, count))
