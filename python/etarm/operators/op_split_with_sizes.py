"""aten.split_with_sizes (split, chunk and unbind-like splits decompose to it): one SLICE per used piece.

Pieces nobody reads are not built, so an unused empty piece (``split(x, [2, 0, 3])``) is fine;
a used one stays on CPU (TOSA tensors have no zero-size dimensions).
"""

import operator

from etarm.lowering import shapes
from etarm.lowering.dtype_rules import EXTENSION_FLOATS
from etarm.lowering.registry import NodeVisitor, register
from etarm.lowering.tensor_math import argument


def _used_pieces(node) -> set[int]:
    return {user.args[1] for user in node.users if user.target is operator.getitem}


@register
class SplitWithSizesVisitor(NodeVisitor):
    targets = ("aten.split_with_sizes_copy.default", "aten.split_with_sizes.default")
    extension_floats = EXTENSION_FLOATS

    def check(self, node, spec):
        rank = shapes.fake(node.args[0]).dim()
        reason = shapes.dim_reason(argument(node, 2, "dim", 0), rank)
        reason = reason or shapes.tensor_reason(shapes.fake(node.args[0]), spec)
        pieces = shapes.fake(node)
        for i in sorted(_used_pieces(node)):
            reason = reason or shapes.tensor_reason(pieces[i], spec, f"result {i}")
        return reason

    def define(self, node, graph):
        x = graph.value(node.args[0])
        axis = shapes.normalize_dim(argument(node, 2, "dim", 0), x.rank)
        used = _used_pieces(node)
        start = 0
        for i, size in enumerate(node.args[1]):
            if i in used:
                graph.bind_item(node, i, shapes.narrow(graph, x, axis, start, int(size)))
            start += int(size)
