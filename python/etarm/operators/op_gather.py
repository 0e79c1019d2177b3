"""aten.gather (torch.gather): TOSA GATHER of single elements (see indexing.gather_elements)."""

from etarm.lowering import indexing, shapes
from etarm.lowering.dtype_rules import EXTENSION_FLOATS
from etarm.lowering.registry import NodeVisitor, register


@register
class GatherVisitor(NodeVisitor):
    targets = ("aten.gather.default",)
    extension_floats = EXTENSION_FLOATS

    def check(self, node, spec):
        x, dim, index = shapes.fake(node.args[0]), node.args[1], node.args[2]
        if x.dim() == 0:
            return "gather on a 0-d input"
        reason = shapes.dim_reason(dim, x.dim()) or indexing.values_reason(x, spec)
        if reason:
            return reason
        reason = indexing.index_reason(index, x.shape[dim], spec)
        if reason:
            return reason
        if shapes.fake(index).dim() != x.dim():
            return f"index rank {shapes.fake(index).dim()} differs from the input rank {x.dim()}"
        return None

    def define(self, node, graph):
        x = graph.value(node.args[0])
        axis = shapes.normalize_dim(node.args[1], x.rank)
        graph.bind(node, indexing.gather_elements(graph, x, axis, graph.value(node.args[2])))
