"""aten.index_select: TOSA GATHER over the values seen as [outer, axis, inner]."""

from etarm.lowering import indexing, shapes
from etarm.lowering.dtype_rules import EXTENSION_FLOATS
from etarm.lowering.registry import NodeVisitor, register


@register
class IndexSelectVisitor(NodeVisitor):
    targets = ("aten.index_select.default",)
    extension_floats = EXTENSION_FLOATS

    def check(self, node, spec):
        x, dim, index = shapes.fake(node.args[0]), node.args[1], node.args[2]
        reason = shapes.dim_reason(dim, x.dim()) or indexing.values_reason(x, spec)
        if reason:
            return reason
        axis_size = x.shape[dim] if x.dim() else 1
        return indexing.index_reason(index, axis_size, spec) or shapes.layout_reason(node, spec)

    def define(self, node, graph):
        x = graph.value(node.args[0])
        axis = shapes.normalize_dim(node.args[1], x.rank)
        rows = indexing.select_along(graph, x, axis, graph.value(node.args[2]))
        shapes.bind_reshaped(graph, node, rows)
