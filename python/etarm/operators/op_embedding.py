"""aten.embedding: TOSA GATHER of weight rows (padding_idx only matters for gradients)."""

from etarm.lowering import indexing, shapes
from etarm.lowering.dtype_rules import EXTENSION_FLOATS
from etarm.lowering.registry import NodeVisitor, register


@register
class EmbeddingVisitor(NodeVisitor):
    targets = ("aten.embedding.default",)
    extension_floats = EXTENSION_FLOATS

    def check(self, node, spec):
        weight = shapes.fake(node.args[0])
        if weight.dim() != 2:
            return f"weight has rank {weight.dim()}, expected 2"
        return indexing.values_reason(weight, spec, "weight") or indexing.index_reason(node.args[1], weight.shape[0], spec, "indices")

    def define(self, node, graph):
        rows = indexing.select_along(graph, graph.value(node.args[0]), 0, graph.value(node.args[1]))
        shapes.bind_reshaped(graph, node, rows)
