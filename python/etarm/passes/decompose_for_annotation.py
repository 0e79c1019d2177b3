"""DecomposeForAnnotation: writes prelu, vector norms and clamps by tensors as the arithmetic
the quantizer annotates.

Edge lowering decomposes ``prelu`` and ``linalg_vector_norm`` into elementwise ops and
reductions that etarm lowers one by one; quantized whole, the pieces it creates after
convert_pt2e would carry no quantization parameters and stay on the CPU. Written out
before annotation, every piece is annotated (and calibrated) like any other op:
``prelu(x, w) = where(x > 0, x, x * w)`` with w along the channel dimension, and the 1-, 2-
and infinity-norms as ``sum(|x|)``, ``sqrt(sum(x * x))`` and ``amax(|x|)``; a clamp whose
bounds are tensors (each quantized with its own parameters) as ``minimum(maximum(x, low), high)``.
"""

from __future__ import annotations

import math
from typing import Callable

import torch

from etarm.passes.base import AnnotationPass
from etarm.passes.node_builder import NodeBuilder, Replacements, replace_float_nodes

aten = torch.ops.aten


def _prelu(add: NodeBuilder, node: torch.fx.Node) -> torch.fx.Node:
    x, weight = node.args[:2]
    rank, channels = x.meta["val"].dim(), weight.meta["val"].numel()
    if rank >= 2 and channels > 1:  # one slope per channel (dimension 1)
        weight = add(aten.view.default, weight, [1, channels] + [1] * (rank - 2))
    return add(aten.where.self, add(aten.gt.Scalar, x, 0.0), x, add(aten.mul.Tensor, x, weight))


def _tensor_bounds(node: torch.fx.Node):
    low = node.args[1] if len(node.args) > 1 else node.kwargs.get("min")
    high = node.args[2] if len(node.args) > 2 else node.kwargs.get("max")
    return low, high


def _clamp_by_tensors(add: NodeBuilder, node: torch.fx.Node) -> torch.fx.Node:
    low, high = _tensor_bounds(node)
    result = node.args[0]
    if low is not None:
        result = add(aten.maximum.default, result, low)
    if high is not None:
        result = add(aten.minimum.default, result, high)
    return result


def _norm_arguments(node: torch.fx.Node):
    args = list(node.args) + [None] * (4 - len(node.args))
    order = node.kwargs.get("ord", args[1] if args[1] is not None else 2)
    dims = node.kwargs.get("dim", args[2])
    keepdim = node.kwargs.get("keepdim", args[3] if args[3] is not None else False)
    dims = (
        list(range(node.args[0].meta["val"].dim()))
        if dims is None
        else ([dims] if isinstance(dims, int) else list(dims))
    )
    return order, dims, keepdim


def _vector_norm(add: NodeBuilder, node: torch.fx.Node) -> torch.fx.Node:
    x = node.args[0]
    order, dims, keepdim = _norm_arguments(node)
    if order == 2:
        return add(aten.sqrt.default, add(aten.sum.dim_IntList, add(aten.mul.Tensor, x, x), dims, keepdim))
    if order == 1:
        return add(aten.sum.dim_IntList, add(aten.abs.default, x), dims, keepdim)
    return add(aten.amax.default, add(aten.abs.default, x), dims, keepdim)


def _norm_applies(node: torch.fx.Node) -> bool:
    order, _dims, _keepdim = _norm_arguments(node)
    return order in (1, 2, math.inf) and "dtype" not in node.kwargs


_DECOMPOSITIONS: Replacements = {
    "aten.prelu.default": (_prelu, lambda node: True),
    "aten.linalg_vector_norm.default": (_vector_norm, _norm_applies),
    "aten.clamp.Tensor": (_clamp_by_tensors, lambda node: True),
}


class DecomposeForAnnotation(AnnotationPass):
    """Writes prelu, 1/2/inf vector norms and clamps by tensors as arithmetic, so that every piece is quantized."""

    def run(self, model: torch.fx.GraphModule, quantizer) -> int:
        return decompose_for_annotation(model, lambda node: quantizer.config_for(node) is not None)


def decompose_for_annotation(model: torch.fx.GraphModule, wants: Callable[[torch.fx.Node], bool]) -> int:
    """Replaces each node ``wants`` accepts that has a decomposition here; returns how many."""
    return replace_float_nodes(model, _DECOMPOSITIONS, wants)
