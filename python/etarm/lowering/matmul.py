"""Matrix products on TOSA MATMUL ([N, H, C] x [N, C, W] -> [N, H, W], zero-point operands).

``batched_matmul`` implements torch.matmul's broadcasting of leading (batch) dims on top
of the rank-3 MATMUL: a right operand without batch dims is shared, so the left batch
folds into the rows (one MATMUL, no copies); otherwise size-1 batch dims are TILEd.
``MatrixProductVisitor`` is the visitor mm, bmm and matmul share.
"""

from __future__ import annotations

import math

import torch
import tosa_serializer as ts

from etarm.lowering import spatial
from etarm.lowering import tensor_math as tm
from etarm.lowering.dtype_rules import EXTENSION_FLOATS
from etarm.lowering.quantized import FloatAndQuantizedVisitor
from etarm.lowering.quantized_products import (
    accumulation,
    accumulator_dtype,
    operand_reason,
    same_dtype_reason,
    write_node_output,
)
from etarm.tosa_ir.graph import TosaGraph, TosaTensor

ZeroPoints = tuple[TosaTensor, TosaTensor]


def matmul3(
    graph: TosaGraph, a: TosaTensor, b: TosaTensor, zero_points: ZeroPoints | None = None, cast_back: bool = True
) -> TosaTensor:
    """MATMUL of rank-3 operands; FP16/BF16 accumulate into FP32 (as torch does on CPU), fp8 into
    FP16 (TOSA 1.0's only fp8 MATMUL), then the result casts back (``cast_back=False``: it stays
    in the accumulator's type, for terms added before one final rounding).

    Integer operands (``zero_points``: their A_zp / B_zp tensors) give the accumulator itself:
    int32 for int8, int48 for int16.
    """
    batch, rows, _ = a.shape
    cols = b.shape[2]
    if zero_points is not None:
        return graph.emit(ts.Op.MATMUL, [a, b, *zero_points], (batch, rows, cols), accumulator_dtype(a.dtype))
    zero_a = graph.const([0], a.dtype, shape=(1,), stem="a_zp")
    zero_b = graph.const([0], b.dtype, shape=(1,), stem="b_zp")
    accumulator = spatial.accumulator_dtype(a.dtype)
    product = graph.emit(ts.Op.MATMUL, [a, b, zero_a, zero_b], (batch, rows, cols), accumulator)
    return tm.cast(graph, product, a.dtype) if cast_back else product


def batched_matmul(
    graph: TosaGraph, a: TosaTensor, b: TosaTensor, zero_points: ZeroPoints | None = None, cast_back: bool = True
) -> TosaTensor:
    """``a @ b`` for a [..., M, K] and b [..., K, N] (both rank >= 2), broadcasting batch dims.

    ``zero_points``: integer operands' zero-point tensors (see ``matmul3``); the result is
    then the rank-3 accumulator. ``cast_back``: see ``matmul3``."""
    (rows, inner), cols = a.shape[-2:], b.shape[-1]
    a_batch, b_batch = a.shape[:-2], b.shape[:-2]
    batch = tm.broadcast_shape(a_batch, b_batch)
    if math.prod(b_batch) == 1:
        # b is the same matrix for every batch entry: stack a's batch into its rows.
        product = matmul3(
            graph,
            graph.reshape(a, (1, math.prod(a_batch) * rows, inner)),
            graph.reshape(b, (1, inner, cols)),
            zero_points,
            cast_back,
        )
        return _batched(graph, product, batch + (rows, cols), zero_points)
    rank = len(batch) + 2
    a = tm.tile(graph, graph.to_rank(a, rank), batch + (rows, inner))
    b = tm.tile(graph, graph.to_rank(b, rank), batch + (inner, cols))
    count = math.prod(batch)
    product = matmul3(
        graph, graph.reshape(a, (count, rows, inner)), graph.reshape(b, (count, inner, cols)), zero_points, cast_back
    )
    return _batched(graph, product, batch + (rows, cols), zero_points)


def _batched(graph: TosaGraph, product: TosaTensor, shape: tuple, zero_points: ZeroPoints | None) -> TosaTensor:
    """The rank-3 product in the batch shape; an integer accumulator stays rank 3, for its
    user to reshape after the RESCALE (TOSA data movement takes no int48)."""
    return product if zero_points is not None else graph.reshape(product, shape)


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


def quantized_matmul(graph: TosaGraph, node: torch.fx.Node, a: TosaTensor, b: TosaTensor) -> TosaTensor:
    """INT: ``node``'s output = ``a @ b`` of its quantized arguments 0 and 1 (see ``batched_matmul``):
    MATMUL with both zero points into int32 (int48 for int16), one RESCALE."""
    acc = accumulation(node, 0, 1)
    product = batched_matmul(graph, a, b, acc.zero_points(graph, a.dtype, b.dtype))
    return write_node_output(graph, node, product, acc)


def quantized_operands_reason(node: torch.fx.Node, operands) -> str | None:
    """INT: per-tensor int8 or int16 operands (zero point 0 for int16), one type for both."""
    for name, arg in operands:
        reason = operand_reason(arg, name, (torch.int8, torch.int16))
        if reason:
            return reason
    return same_dtype_reason(operands)


class MatrixProductVisitor(FloatAndQuantizedVisitor):
    """aten.mm / aten.bmm / aten.matmul: ``batched_matmul`` of arguments 0 and 1; quantized (INT),
    ``quantized_matmul``. Subclasses give the ranks each operand may have."""

    operand_names = ("self", "mat2")
    extension_floats = EXTENSION_FLOATS
    ranks: tuple[int, ...]

    def _named_operands(self, node):
        return list(zip(self.operand_names, node.args[:2]))

    def float_reason(self, node, spec):
        return operands_reason(node, self._named_operands(node), ranks=self.ranks)

    def quantized_reason(self, node, spec):
        return quantized_operands_reason(node, self._named_operands(node))

    def matrices(self, graph: TosaGraph, node: torch.fx.Node) -> tuple[TosaTensor, TosaTensor]:
        """Arguments 0 and 1 as ``batched_matmul`` multiplies them."""
        return graph.value(node.args[0]), graph.value(node.args[1])

    def define_float(self, node, graph):
        tm.bind_result(graph, node, batched_matmul(graph, *self.matrices(graph, node)))

    def define_quantized(self, node, graph):
        quantized_matmul(graph, node, *self.matrices(graph, node))
