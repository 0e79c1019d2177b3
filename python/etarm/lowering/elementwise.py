"""Helpers shared by elementwise visitors: operand lookup, scalar constants, broadcasting."""

from __future__ import annotations

import numbers

import torch
import tosa_serializer as ts

from etarm.tosa_ir.graph import TosaGraph, TosaTensor
from etarm.tosa_ir.mapping import tosa_dtype

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


def binary(graph: TosaGraph, node: torch.fx.Node, op, lhs: Operand, rhs: Operand, out: TosaTensor | None = None) -> TosaTensor:
    """Emits ``op(lhs, rhs)`` with TOSA's equal-rank broadcasting; returns the result."""
    return graph.binary(op, operand(graph, lhs, node), operand(graph, rhs, node), out=out)


def times_alpha(graph: TosaGraph, node: torch.fx.Node, arg: Operand, alpha) -> Operand:
    """``alpha * arg`` for add/sub's alpha; ``arg`` itself when alpha is 1."""
    if alpha == 1:
        return arg
    if isinstance(arg, numbers.Number):
        return arg * alpha
    return binary(graph, node, ts.Op.MUL, arg, alpha)
