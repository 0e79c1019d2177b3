"""aten.slice_scatter: CONCAT of the untouched parts and ``src``; steps > 1 interleave ``src``
into one column of the reshaped span (see shapes.put_strided)."""

from etarm.lowering import shapes
from etarm.lowering.dtype_rules import EXTENSION_FLOATS
from etarm.lowering.registry import NodeVisitor, register


@register
class SliceScatterVisitor(NodeVisitor):
    targets = ("aten.slice_scatter.default",)
    extension_floats = EXTENSION_FLOATS

    def check(self, node, spec):
        x, src = shapes.fake(node.args[0]), shapes.fake(node.args[1])
        reason = shapes.slice_reason(x.dim(), *shapes.slice_arguments(node, 2))
        if reason:
            return reason
        if src.dtype != x.dtype:
            return f"src dtype {src.dtype} differs from the input dtype {x.dtype}"
        return shapes.layout_reason(node, spec, node.args[0], node.args[1])

    def define(self, node, graph):
        x, src = graph.value(node.args[0]), graph.value(node.args[1])
        dim, start, end, step = shapes.slice_arguments(node, 2)
        axis = shapes.normalize_dim(dim, x.rank)
        start, count = shapes.slice_bounds(x.shape[axis], start, end, step)
        graph.bind(node, shapes.put_strided(graph, x, src, axis, start, step, count))
