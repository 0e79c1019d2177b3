"""aten.index.Tensor (``x[:, idx]``, ``x[i, :, j]``, ``x[..., i, j]``): TOSA GATHER.

One integer index tensor gathers along its axis. Several (advanced indexing) are
broadcast together and combined into row-major offsets over the indexed axes, which are
moved first and flattened; one GATHER then reads the rest of each row. As in torch, the
result's indexed dimensions stand where the indexed axes were when those are adjacent,
and first otherwise. Negative indices count from the end, as in Python. Boolean masks
stay on CPU.
"""

import math

import torch

from etarm.lowering import indexing, shapes
from etarm.lowering.dtype_rules import EXTENSION_FLOATS
from etarm.lowering.registry import NodeVisitor, register
from etarm.lowering.tensor_math import broadcast_shape


def indexed_axes(node) -> list[int]:
    return [i for i, index in enumerate(node.args[1]) if index is not None]


def _broadcast_index_shape(node) -> tuple[int, ...]:
    shape: tuple[int, ...] = ()
    for axis in indexed_axes(node):
        shape = broadcast_shape(shape, tuple(shapes.fake(node.args[1][axis]).shape))
    return shape


@register
class IndexVisitor(NodeVisitor):
    targets = ("aten.index.Tensor",)
    extension_floats = EXTENSION_FLOATS

    def check(self, node, spec):
        x = shapes.fake(node.args[0])
        axes = indexed_axes(node)
        if not axes:
            return "indices: no index tensor"
        if axes[-1] >= x.dim():
            return f"index at axis {axes[-1]} of a rank-{x.dim()} input"
        for axis in axes:
            index = node.args[1][axis]
            if isinstance(index, torch.fx.Node) and shapes.fake(index).dtype in (torch.bool, torch.uint8):
                return "indices: boolean mask indexing is not supported"
        reason = indexing.values_reason(x, spec)
        combined = math.prod(x.shape[axis] for axis in axes)  # offsets into the indexed axes
        for axis in axes:
            reason = reason or indexing.index_reason(node.args[1][axis], combined, spec, "indices")
        return reason

    def define(self, node, graph):
        axes = indexed_axes(node)
        x = graph.value(node.args[0])
        if len(axes) == 1:
            index = graph.value(node.args[1][axes[0]])
            shapes.bind_reshaped(graph, node, indexing.select_along(graph, x, axes[0], index, wrap_negative=True))
            return
        rest = [axis for axis in range(x.rank) if axis not in axes]
        moved = graph.transpose(x, axes + rest)
        sizes = [x.shape[axis] for axis in axes]
        rows = graph.reshape(moved, (1, math.prod(sizes), math.prod(x.shape[axis] for axis in rest)))
        index_shape = _broadcast_index_shape(node)
        offsets = indexing.combined_index(graph, [graph.value(node.args[1][a]) for a in axes], sizes, index_shape)
        picked = indexing.gather(graph, rows, offsets)
        rest_shape = tuple(x.shape[axis] for axis in rest)
        result = graph.reshape(picked, index_shape + rest_shape)
        adjacent = axes == list(range(axes[0], axes[-1] + 1))
        if adjacent and axes[0] > 0:
            # Indexed dimensions go back between the axes before and after them.
            before, count = axes[0], len(index_shape)
            perm = [count + i for i in range(before)] + list(range(count)) + list(range(count + before, result.rank))
            result = graph.transpose(result, perm)
        shapes.bind_reshaped(graph, node, result)
