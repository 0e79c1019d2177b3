"""Arithmetic on TOSA tensors for composite lowerings (reductions, norms, matmul, attention).

Unlike ``elementwise.py``, these helpers work on ``TosaTensor``s alone (no fx node), so a
visitor can chain intermediate results of any rank. Floating point only: composites of
reduced-precision floats compute in FP32 (``widen``/``narrow``), as torch does on CPU.
"""

from __future__ import annotations

import operator
from typing import Sequence

import torch
import tosa_serializer as ts

from etarm.lowering.dtype_rules import EXTENSION_FLOATS
from etarm.tosa_ir.graph import TosaGraph, TosaTensor
from etarm.tosa_ir.mapping import tosa_dtype

# Float dtypes the composites of this area lower (those of the FP extensions if the registry let them in).
FLOAT_DTYPES = (torch.float32, torch.float16, *EXTENSION_FLOATS)


def float_tensor_reason(value, what: str = "input") -> str | None:
    """Why a tensor (fake value) cannot be lowered by a float composite, or None."""
    if not isinstance(value, torch.Tensor):
        return f"{what} is not a tensor"
    if value.dtype not in FLOAT_DTYPES:
        return f"{what} dtype {value.dtype} is not supported (only floats)"
    if value.numel() == 0:
        return f"{what} has no elements (TOSA tensors cannot be empty)"
    return None


def broadcast_shape(a: Sequence[int], b: Sequence[int]) -> tuple[int, ...]:
    return tuple(torch.broadcast_shapes(tuple(a), tuple(b)))


def scalar(graph: TosaGraph, value: float, dtype, rank: int) -> TosaTensor:
    return graph.const([value], dtype, shape=(1,) * max(rank, 1), stem="scalar")



def add(graph, a, b):
    return graph.binary(ts.Op.ADD, a, b)


def sub(graph, a, b):
    return graph.binary(ts.Op.SUB, a, b)


def mul(graph, a, b):
    return graph.binary(ts.Op.MUL, a, b)


def scale(graph: TosaGraph, tensor: TosaTensor, factor: float) -> TosaTensor:
    """``tensor * factor``; no op when factor is 1."""
    if factor == 1:
        return tensor
    return mul(graph, tensor, scalar(graph, factor, tensor.dtype, tensor.rank))


def add_scalar(graph: TosaGraph, tensor: TosaTensor, value: float) -> TosaTensor:
    if value == 0:
        return tensor
    return add(graph, tensor, scalar(graph, value, tensor.dtype, tensor.rank))


def unary(graph: TosaGraph, op, tensor: TosaTensor) -> TosaTensor:
    return graph.emit(op, [tensor], tensor.shape, tensor.dtype)


def sqrt(graph: TosaGraph, tensor: TosaTensor) -> TosaTensor:
    """TOSA has no SQRT: 1/rsqrt(x), which keeps sqrt(0) == 0 (x * rsqrt(x) would give NaN)."""
    return unary(graph, ts.Op.RECIPROCAL, unary(graph, ts.Op.RSQRT, tensor))


def select(graph: TosaGraph, condition: TosaTensor, on_true: TosaTensor, on_false: TosaTensor) -> TosaTensor:
    rank = max(condition.rank, on_true.rank, on_false.rank)
    condition, on_true, on_false = (graph.to_rank(t, rank) for t in (condition, on_true, on_false))
    shape = broadcast_shape(broadcast_shape(condition.shape, on_true.shape), on_false.shape)
    return graph.emit(ts.Op.SELECT, [condition, on_true, on_false], shape, on_true.dtype)


def cast(graph: TosaGraph, tensor: TosaTensor, dtype) -> TosaTensor:
    if tensor.dtype == dtype:
        return tensor
    return graph.emit(ts.Op.CAST, [tensor], tensor.shape, dtype)


def widen(graph: TosaGraph, tensor: TosaTensor) -> TosaTensor:
    """FP16/BF16 -> FP32 for accumulating composites (torch accumulates half floats in float on CPU)."""
    return cast(graph, tensor, ts.DType.FP32) if tensor.dtype in (ts.DType.FP16, ts.DType.BF16) else tensor


def narrow(graph: TosaGraph, tensor: TosaTensor, dtype) -> TosaTensor:
    """Back to the node's result dtype after ``widen``."""
    return cast(graph, tensor, dtype)



def swap_last_two(graph: TosaGraph, tensor: TosaTensor) -> TosaTensor:
    perms = list(range(tensor.rank))
    perms[-2], perms[-1] = perms[-1], perms[-2]
    return graph.transpose(tensor, perms)


def tile(graph: TosaGraph, tensor: TosaTensor, shape: Sequence[int]) -> TosaTensor:
    """Repeats size-1 dimensions of ``tensor`` (same rank) up to ``shape``."""
    multiples = [int(want) if have == 1 else 1 for have, want in zip(tensor.shape, shape)]
    if all(m == 1 for m in multiples):
        return tensor
    out_shape = tuple(d * m for d, m in zip(tensor.shape, multiples))
    return graph.emit(ts.Op.TILE, [tensor, graph.shape_const(multiples)], out_shape, tensor.dtype)


def argument(node: torch.fx.Node, index: int, name: str, default=None):
    """An fx node's argument, passed positionally or by keyword."""
    if len(node.args) > index:
        return node.args[index]
    return node.kwargs.get(name, default)


def bind_result(graph: TosaGraph, node: torch.fx.Node, tensor: TosaTensor, index: int | None = None) -> TosaTensor:
    """Reshapes/casts ``tensor`` to ``node``'s result (item ``index`` of a multi-output node) and binds it."""
    fake = node.meta["val"] if index is None else node.meta["val"][index]
    tensor = graph.reshape(cast(graph, tensor, tosa_dtype(fake.dtype)), tuple(fake.shape))
    if index is None:
        graph.bind(node, tensor)
    else:
        graph.bind_item(node, index, tensor)
    return tensor



def used_items(node: torch.fx.Node) -> set[int]:
    """Which results of a multi-output node are read (through operator.getitem)."""
    return {user.args[1] for user in node.users if user.op == "call_function" and user.target is operator.getitem}
