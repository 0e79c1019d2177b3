"""aten.slice_scatter: CONCAT of the untouched parts and ``src``; steps > 1 interleave ``src``
into one column of the reshaped span (see shapes.put_strided)."""

from etarm.lowering import shapes
from etarm.lowering.registry import NodeVisitor, register
from etarm.lowering.tensor_math import argument


def scatter_arguments(node):
    """(dim, start, end, step) of slice_scatter(input, src, dim, start, end, step)."""
    return (
        argument(node, 2, "dim", 0),
        argument(node, 3, "start", None),
        argument(node, 4, "end", None),
        argument(node, 5, "step", 1),
    )


@register
class SliceScatterVisitor(NodeVisitor):
    targets = ("aten.slice_scatter.default",)

    def check(self, node, spec):
        x, src = shapes.fake(node.args[0]), shapes.fake(node.args[1])
        reason = shapes.slice_reason(x.dim(), *scatter_arguments(node))
        if reason:
            return reason
        if src.dtype != x.dtype:
            return f"src dtype {src.dtype} differs from the input dtype {x.dtype}"
        return shapes.layout_reason(node, spec, node.args[0], node.args[1])

    def define(self, node, graph):
        x, src = graph.value(node.args[0]), graph.value(node.args[1])
        dim, start, end, step = scatter_arguments(node)
        axis = shapes.normalize_dim(dim, x.rank)
        start, count = shapes.slice_bounds(x.shape[axis], start, end, step)
        graph.bind(node, shapes.put_strided(graph, x, src, axis, start, step, count))
