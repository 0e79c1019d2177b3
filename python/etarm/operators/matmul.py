"""Matrix products on TOSA MATMUL ([N, H, C] x [N, C, W] -> [N, H, W], zero-point operands).

``batched_matmul`` implements torch.matmul's broadcasting of leading (batch) dims on top
of the rank-3 MATMUL: a right operand without batch dims is shared, so the left batch
folds into the rows (one MATMUL, no copies); otherwise size-1 batch dims are TILEd.
"""

from __future__ import annotations

import math

import torch
import tosa_serializer as ts

from etarm.operators import tensor_math as tm
from etarm.tosa.graph import TosaGraph, TosaTensor


def matmul3(graph: TosaGraph, a: TosaTensor, b: TosaTensor) -> TosaTensor:
    """MATMUL of rank-3 operands; FP16 accumulates into FP32 (as torch does on CPU), then casts back."""
    batch, rows, _ = a.shape
    cols = b.shape[2]
    zero_a = graph.const([0], a.dtype, shape=(1,), stem="a_zp")
    zero_b = graph.const([0], b.dtype, shape=(1,), stem="b_zp")
    product = graph.emit(ts.Op.MATMUL, [a, b, zero_a, zero_b], (batch, rows, cols), ts.DType.FP32)
    return tm.cast(graph, product, a.dtype)


def batched_matmul(graph: TosaGraph, a: TosaTensor, b: TosaTensor) -> TosaTensor:
    """``a @ b`` for a [..., M, K] and b [..., K, N] (both rank >= 2), broadcasting batch dims."""
    (rows, inner), cols = a.shape[-2:], b.shape[-1]
    a_batch, b_batch = a.shape[:-2], b.shape[:-2]
    batch = tm.broadcast_shape(a_batch, b_batch)
    if math.prod(b_batch) == 1:
        # b is the same matrix for every batch entry: stack a's batch into its rows.
        product = matmul3(
            graph,
            tm.reshape(graph, a, (1, math.prod(a_batch) * rows, inner)),
            tm.reshape(graph, b, (1, inner, cols)),
        )
        return graph.reshape(product, batch + (rows, cols))
    rank = len(batch) + 2
    a = tm.tile(graph, tm.to_rank(graph, a, rank), batch + (rows, inner))
    b = tm.tile(graph, tm.to_rank(graph, b, rank), batch + (inner, cols))
    count = math.prod(batch)
    product = matmul3(graph, tm.reshape(graph, a, (count, rows, inner)), tm.reshape(graph, b, (count, inner, cols)))
    return graph.reshape(product, batch + (rows, cols))


def operands_reason(node: torch.fx.Node, operands, ranks=None) -> str | None:
    """Float operands of one dtype (and, if given, allowed ranks) for the matmul family."""
    dtypes = set()
    for name, arg in operands:
        if not isinstance(arg, torch.fx.Node):
            return f"{name} is not a tensor"
        value = arg.meta["val"]
        reason = tm.float_tensor_reason(value, name)
        if reason:
            return reason
        if ranks is not None and value.dim() not in ranks:
            return f"{name} has rank {value.dim()} (expected {' or '.join(map(str, ranks))})"
        dtypes.add(value.dtype)
    if len(dtypes) > 1:
        return f"operands mix dtypes {sorted(map(str, dtypes))}"
    return None
