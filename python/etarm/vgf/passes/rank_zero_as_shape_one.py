"""RankZeroAsShapeOne: every rank-0 tensor of the graph becomes a tensor of shape [1].

TOSA allows rank-0 tensors (``x.sum()``, ``x.max()``, a scalar input), but a Vulkan tensor
cannot have rank 0 (VK_ARM_tensors: ``VkTensorDescriptionARM::dimensionCount`` must be
greater than 0; SPV_ARM_tensor has no rank-0 type either), and the model converter passes
rank 0 through to the .vgf. One element either way, in the same bytes, so the graph computes
the same; the VGF delegate binds a rank-0 ExecuTorch argument to a graph input or output of
shape [1] (docs/vgf_runtime.md).

Besides the tensors (and constants' data), what depends on a tensor's rank follows: the
shape operand of a RESHAPE to rank 0 becomes [1]; an ARGMAX that reduced a rank-1 tensor to
rank 0 now reduces a [1, N] view of it to [1]. Nothing else takes or makes rank 0 with an
operand or attribute that depends on it: elementwise operators (their operands share one
rank in TOSA, so all were rank 0) need nothing, and the operators with an axis or a
per-dimension operand (TRANSPOSE, SLICE, PAD, TILE, CONCAT, REVERSE, the reductions) take
rank 1 and more.
"""

from __future__ import annotations

import dataclasses

import tosa_serializer as ts

from etarm.errors import EtarmError
from etarm.passes.base import Stage, TosaPass
from etarm.tosa_ir.graph import TosaGraph, TosaOp

# Operators whose input has rank 1 or more in a valid TOSA graph (an axis, or an operand per dimension).
_NO_RANK_ZERO = {
    ts.Op.ARGMAX, ts.Op.CONCAT, ts.Op.REVERSE, ts.Op.REDUCE_ALL, ts.Op.REDUCE_ANY, ts.Op.REDUCE_MAX,
    ts.Op.REDUCE_MIN, ts.Op.REDUCE_PRODUCT, ts.Op.REDUCE_SUM, ts.Op.TRANSPOSE, ts.Op.SLICE, ts.Op.PAD, ts.Op.TILE,
}  # fmt: skip


class RankZeroAsShapeOne(TosaPass):
    """Gives every rank-0 tensor shape [1], with the shape operands and attributes that follow (Vulkan has no rank 0)."""

    stage = Stage.BACKEND

    def run(self, graph: TosaGraph) -> int:
        """Returns the number of rank-0 tensors reshaped (those the serialized graph holds)."""
        used = {*graph.inputs, *graph.outputs, *(name for op in graph.ops for name in (*op.inputs, *op.outputs))}
        scalars = {name for name in used if graph.tensors[name].rank == 0 and graph.tensors[name].dtype != ts.DType.SHAPE}
        if not scalars:
            return 0
        ops = []
        for op in graph.ops:
            ops += _rewritten(graph, op, scalars)
        graph.ops = ops
        for name in scalars:
            graph.tensors[name] = dataclasses.replace(graph.tensors[name], shape=(1,))
            if name in graph.constants:
                graph.constants[name] = graph.constants[name].reshape(1)
        return len(scalars)


def _rewritten(graph: TosaGraph, op: TosaOp, scalars: set[str]) -> list[TosaOp]:
    """``op`` (or what replaces it) once the tensors in ``scalars`` have shape [1]."""
    source = op.inputs[0] if op.inputs else None
    if op.op == ts.Op.RESHAPE and op.outputs[0] in scalars:
        return [dataclasses.replace(op, inputs=[source, graph.shape_const([1]).name])]
    if op.op == ts.Op.ARGMAX and op.outputs[0] in scalars:
        (length,) = graph.tensors[source].shape  # rank 1 -> rank 0: a [1, N] view, reduced along axis 1
        view = graph.temp((1, length), graph.tensors[source].dtype, stem="view")
        reshape = TosaOp(ts.Op.RESHAPE, [source, graph.shape_const((1, length)).name], [view.name], (), op.origin)
        return [reshape, dataclasses.replace(op, inputs=[view.name], attr_args=(1, *op.attr_args[1:]))]
    if source not in scalars:
        return [op]
    if op.op in _NO_RANK_ZERO:
        raise EtarmError(f"internal: {op.op.name} of the rank-0 tensor '{source}' is not valid TOSA")
    return [op]
