"""Shared pieces of layer/group/RMS/batch norm: standardize over axes, then scale and shift."""

from __future__ import annotations

import math
from typing import Sequence

import torch
import tosa_serializer as ts

from etarm.operators import tensor_math as tm
from etarm.operators.reduction import mean, variance
from etarm.tosa.graph import TosaGraph, TosaTensor


def standardize(graph: TosaGraph, tensor: TosaTensor, axes: Sequence[int], eps: float):
    """((x - mean) * rstd, mean, rstd) with rstd = RSQRT(biased variance + eps); axes kept."""
    centre, deviation, var = variance(graph, tensor, axes, correction=0)
    rstd = tm.unary(graph, ts.Op.RSQRT, tm.add_scalar(graph, var, eps))
    return tm.mul(graph, deviation, rstd), centre, rstd


def rms_scale(graph: TosaGraph, tensor: TosaTensor, axes: Sequence[int], eps: float) -> TosaTensor:
    """x * RSQRT(mean(x^2) + eps)."""
    mean_square = mean(graph, tm.mul(graph, tensor, tensor), axes)
    return tm.mul(graph, tensor, tm.unary(graph, ts.Op.RSQRT, tm.add_scalar(graph, mean_square, eps)))


def channel_vector(graph: TosaGraph, node_or_none, shape: Sequence[int], dtype) -> TosaTensor | None:
    """An optional weight/bias operand reshaped to ``shape`` (broadcastable) in ``dtype``."""
    if node_or_none is None:
        return None
    tensor = graph.value(node_or_none)
    return tm.cast(graph, tm.reshape(graph, tensor, shape), dtype)


def affine(graph: TosaGraph, tensor: TosaTensor, weight: TosaTensor | None, bias: TosaTensor | None) -> TosaTensor:
    if weight is not None:
        tensor = tm.mul(graph, tensor, weight)
    if bias is not None:
        tensor = tm.add(graph, tensor, bias)
    return tensor


def trailing_flattened(shape: Sequence[int], count: int) -> tuple[int, ...]:
    """``shape`` with its last ``count`` dimensions merged into one (normalized_shape)."""
    lead = tuple(shape[: len(shape) - count])
    return lead + (math.prod(shape[len(shape) - count :]),)


def optional_operand_reason(node: torch.fx.Node, names_and_args) -> str | None:
    """Weight/bias/stat operands must be float tensors like the input."""
    for name, arg in names_and_args:
        if arg is None:
            continue
        if not isinstance(arg, torch.fx.Node):
            return f"{name} is not a tensor"
        reason = tm.float_tensor_reason(arg.meta["val"], name)
        if reason:
            return reason
    return None
