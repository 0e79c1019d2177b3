"""aten.split_with_sizes (split, chunk and unbind-like splits decompose to it): one SLICE per used piece."""

import operator

from etarm.lowering import shapes
from etarm.lowering.registry import NodeVisitor, register
from etarm.lowering.tensor_math import argument


@register
class SplitWithSizesVisitor(NodeVisitor):
    targets = ("aten.split_with_sizes_copy.default", "aten.split_with_sizes.default")

    def check(self, node, spec):
        rank = shapes.fake(node.args[0]).dim()
        return shapes.dim_reason(argument(node, 2, "dim", 0), rank) or shapes.layout_reason(node, spec, node.args[0])

    def define(self, node, graph):
        x = graph.value(node.args[0])
        axis = shapes.normalize_dim(argument(node, 2, "dim", 0), x.rank)
        used = {user.args[1] for user in node.users if user.target is operator.getitem}
        start = 0
        for i, size in enumerate(node.args[1]):
            if i in used:
                graph.bind_item(node, i, shapes.narrow(graph, x, axis, start, int(size)))
            start += int(size)
