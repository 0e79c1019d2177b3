"""aten.index_put with ONE integer index tensor (``x[:, idx] = v``, ``x[idx] += v``).

The indexed axis splits ``x`` into rows ``[outer, K, inner]``; ``v`` (broadcast to the
indexed shape) gives ``[outer, W, inner]``. Without accumulate: TOSA SCATTER writes the rows
(indices must not repeat: TOSA leaves repeated writes undefined, as torch does). With
accumulate (float only): repeated indices add up, so each row receives
``onehot[K, W] @ v``, with ``onehot[k, w] = (idx[w] == k)``, added to ``x``. Negative indices
count from the end. Several index tensors and boolean masks stay on CPU.
"""

import math

import numpy as np
import torch
import tosa_serializer as ts

from etarm.lowering import indexing, shapes
from etarm.lowering.dtype_rules import EXTENSION_FLOATS
from etarm.lowering.matmul import matmul3
from etarm.lowering.registry import NodeVisitor, register


def _arguments(node):
    indices, values = node.args[1], node.args[2]
    accumulate = node.args[3] if len(node.args) > 3 else node.kwargs.get("accumulate", False)
    present = [i for i, index in enumerate(indices) if index is not None]
    axis = present[0] if len(present) == 1 else None
    return axis, (indices[axis] if axis is not None else None), values, bool(accumulate)


def _indexed_shape(x_shape, axis: int, index_shape) -> tuple[int, ...]:
    return tuple(x_shape[:axis]) + tuple(index_shape) + tuple(x_shape[axis + 1 :])


@register
class IndexPutVisitor(NodeVisitor):
    targets = ("aten.index_put.default",)
    extension_floats = EXTENSION_FLOATS

    def check(self, node, spec):
        x = shapes.fake(node.args[0])
        axis, index, values, accumulate = _arguments(node)
        if axis is None:
            return "indices: only a single index tensor is supported"
        if isinstance(index, torch.fx.Node) and shapes.fake(index).dtype in (torch.bool, torch.uint8):
            return "indices: boolean mask indexing is not supported"
        if axis >= x.dim():
            return f"index at axis {axis} of a rank-{x.dim()} input"
        if not isinstance(values, torch.fx.Node):
            return "values: only a tensor of values is supported"
        v = shapes.fake(values)
        if v.dtype != x.dtype:
            return f"values dtype {v.dtype} differs from the input dtype {x.dtype}"
        indexed = _indexed_shape(x.shape, axis, shapes.fake(index).shape)
        if torch.broadcast_shapes(v.shape, indexed) != torch.Size(indexed):
            return f"values of shape {list(v.shape)} do not broadcast to the indexed shape {list(indexed)}"
        if accumulate and (not spec.supports_fp() or not x.dtype.is_floating_point):
            return "accumulate=True is lowered for float tensors only"
        return indexing.values_reason(x, spec) or indexing.index_reason(index, x.shape[axis], spec, "indices")

    def define(self, node, graph):
        axis, index_node, values_node, accumulate = _arguments(node)
        x, index = graph.value(node.args[0]), graph.value(index_node)
        outer, size, inner = math.prod(x.shape[:axis]), x.shape[axis], math.prod(x.shape[axis + 1 :])
        count = math.prod(index.shape)
        indexed = _indexed_shape(x.shape, axis, index.shape)
        values = graph.value(values_node)
        values = shapes.tile(
            graph,
            graph.reshape(values, (1,) * (len(indexed) - values.rank) + values.shape),
            [want // have for want, have in zip(indexed, (1,) * (len(indexed) - values.rank) + values.shape)],
        )
        rows = graph.reshape(x, (outer, size, inner))
        updates = graph.reshape(values, (outer, count, inner))
        if accumulate:
            onehot = graph.reshape(_onehot(graph, index, size), (1, size, count))
            added = matmul3(graph, shapes.tile(graph, onehot, (outer, 1, 1)), updates)
            result = graph.emit(ts.Op.ADD, [rows, added], rows.shape, rows.dtype)
        else:
            positions = indexing.gather_indices(graph, index, repeat=outer, wrap_size=size)
            result = graph.emit(ts.Op.SCATTER, [rows, positions, updates], rows.shape, rows.dtype)
        shapes.bind_reshaped(graph, node, result)


def _onehot(graph, index, size: int):
    """``[size, W]`` fp32: 1 where row k is index w's (negative indices from the end)."""
    data = graph.constants.get(index.name)
    if data is not None:
        flat = np.asarray(data, dtype=np.int64).reshape(-1)
        flat = np.where(flat < 0, flat + size, flat)
        return graph.const((np.arange(size)[:, None] == flat[None, :]).astype(np.float32), ts.DType.FP32, stem="onehot")
    flat = graph.reshape(index, (1, math.prod(index.shape)))
    as_float = graph.emit(ts.Op.CAST, [flat], flat.shape, ts.DType.FP32)  # exact below 2**24 (index_reason)
    zero = graph.const([0.0], ts.DType.FP32, shape=(1, 1), stem="zero")
    negative = graph.emit(ts.Op.GREATER, [zero, as_float], flat.shape, ts.DType.BOOL)
    wrapped = graph.emit(
        ts.Op.SELECT,
        [
            negative,
            graph.emit(
                ts.Op.ADD,
                [as_float, graph.const([float(size)], ts.DType.FP32, shape=(1, 1), stem="size")],
                flat.shape,
                ts.DType.FP32,
            ),
            as_float,
        ],
        flat.shape,
        ts.DType.FP32,
    )
    rows = graph.const(np.arange(size, dtype=np.float32).reshape(size, 1), ts.DType.FP32, stem="row_numbers")
    hits = graph.emit(ts.Op.EQUAL, [rows, wrapped], (size, flat.shape[1]), ts.DType.BOOL)
    one = graph.const([1.0], ts.DType.FP32, shape=(1, 1), stem="one")
    return graph.emit(
        ts.Op.SELECT,
        [hits, one, graph.const([0.0], ts.DType.FP32, shape=(1, 1), stem="zero")],
        hits.shape,
        ts.DType.FP32,
    )
