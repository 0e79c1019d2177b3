"""aten.index.Tensor with ONE integer index tensor (``x[:, idx]``): TOSA GATHER along that axis.

Negative indices count from the end, as in Python. Several index tensors (advanced indexing
that combines them) and boolean masks stay on CPU.
"""

import torch

from etarm.lowering import indexing, shapes
from etarm.lowering.registry import NodeVisitor, register


def indexed_axis(node) -> int | None:
    """The axis of the single index tensor, or None if there is not exactly one."""
    present = [i for i, index in enumerate(node.args[1]) if index is not None]
    return present[0] if len(present) == 1 else None


@register
class IndexVisitor(NodeVisitor):
    targets = ("aten.index.Tensor",)

    def check(self, node, spec):
        x = shapes.fake(node.args[0])
        axis = indexed_axis(node)
        if axis is None:
            return "indices: only a single index tensor is supported"
        index = node.args[1][axis]
        if isinstance(index, torch.fx.Node) and shapes.fake(index).dtype in (torch.bool, torch.uint8):
            return "indices: boolean mask indexing is not supported"
        if axis >= x.dim():
            return f"index at axis {axis} of a rank-{x.dim()} input"
        return indexing.values_reason(x, spec) or indexing.index_reason(index, x.shape[axis], spec, "indices")

    def define(self, node, graph):
        axis = indexed_axis(node)
        x, index = graph.value(node.args[0]), graph.value(node.args[1][axis])
        rows = indexing.select_along(graph, x, axis, index, wrap_negative=True)
        shapes.bind_reshaped(graph, node, rows)
