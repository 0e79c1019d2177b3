"""Helpers shared by elementwise visitors: operand lookup, scalar constants, broadcasting."""

from __future__ import annotations

import numbers

import torch
import tosa_serializer as ts

from etarm.tosa.graph import TosaGraph, TosaTensor
from etarm.tosa.mapping import tosa_dtype

Operand = torch.fx.Node | TosaTensor | numbers.Number


def output_rank(node: torch.fx.Node) -> int:
    return len(node.meta["val"].shape)


def operand(graph: TosaGraph, arg: Operand, node: torch.fx.Node) -> TosaTensor:
    """The TOSA tensor for an operand of ``node``, raised to the output's rank.

    A Python scalar becomes a constant of the output's data type.
    """
    rank = output_rank(node)
    if isinstance(arg, torch.fx.Node):
        return graph.to_rank(graph.value(arg), rank)
    if isinstance(arg, TosaTensor):
        return graph.to_rank(arg, rank)
    if isinstance(arg, numbers.Number):
        dtype = tosa_dtype(node.meta["val"].dtype)
        return graph.const([arg], dtype, shape=(1,) * rank, stem="scalar")
    raise TypeError(f"unsupported operand {arg!r} of {node.name}")


def _broadcast_shape(a: TosaTensor, b: TosaTensor) -> tuple[int, ...]:
    return tuple(max(x, y) for x, y in zip(a.shape, b.shape))


def binary(graph: TosaGraph, node: torch.fx.Node, op, lhs: Operand, rhs: Operand, out: TosaTensor | None = None) -> TosaTensor:
    """Emits ``op(lhs, rhs)`` with TOSA's equal-rank broadcasting; returns the result."""
    a = operand(graph, lhs, node)
    b = operand(graph, rhs, node)
    if out is None:
        out = graph.temp(_broadcast_shape(a, b), a.dtype)
    inputs = [a, b]
    if op == ts.Op.MUL:
        # TOSA 1.0 MUL takes a shift operand: zero for floats and plain integer products.
        inputs.append(graph.const([0], ts.DType.INT8, stem="shift"))
    graph.op(op, inputs, [out])
    return out


def times_alpha(graph: TosaGraph, node: torch.fx.Node, arg: Operand, alpha) -> Operand:
    """``alpha * arg`` for add/sub's alpha; ``arg`` itself when alpha is 1."""
    if alpha == 1:
        return arg
    if isinstance(arg, numbers.Number):
        return arg * alpha
    return binary(graph, node, ts.Op.MUL, arg, alpha)
