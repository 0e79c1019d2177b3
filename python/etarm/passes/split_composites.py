"""SplitComposites: splits layer norm, RMS norm and unmasked attention into their arithmetic before annotation.

On an NPU without int16 lookups or int16 matrix products (Ethos-U55/U65), computing
these composites exactly in int32 (operators/normalization.py, integer_attention.py)
costs several times what their arithmetic does with int8 between the steps: the mean,
the variance, the reciprocal square root, the scores and the softmax weights each
quantized like any activation, as TFLite quantizes them. The quantized model then holds
those roundings itself, so the lowering still matches it step by step.

The quantizer splits only ops with int8 activations: int16 steps would need int16
look-ups (rsqrt, exp), which those NPUs lack, where the exact composites run on them.
Masked, causal, dropout and grouped-query attention stay whole: a mask's fill value
would be rounded into the scores' range, where it no longer removes a key.
"""

from __future__ import annotations

import math
from typing import Callable

import torch

from etarm.passes.base import AnnotationPass
from etarm.passes.node_builder import NodeBuilder, replace_float_nodes

aten = torch.ops.aten


def _argument(node: torch.fx.Node, index: int, name: str, default=None):
    if index < len(node.args):
        return node.args[index]
    return node.kwargs.get(name, default)


def _normalized(add: NodeBuilder, centred: torch.fx.Node, dims: list, eps: float, weight, bias):
    """``centred / sqrt(mean(x**2 over dims) + eps) * weight + bias``."""
    mean_square = add(aten.mean.dim, add(aten.mul.Tensor, centred, centred), dims, True)
    inverse_deviation = add(aten.rsqrt.default, add(aten.add.Tensor, mean_square, eps))
    result = add(aten.mul.Tensor, centred, inverse_deviation)
    if isinstance(weight, torch.fx.Node):
        result = add(aten.mul.Tensor, result, weight)
    if isinstance(bias, torch.fx.Node):
        result = add(aten.add.Tensor, result, bias)
    return result


def _layer_norm(add: NodeBuilder, node: torch.fx.Node) -> torch.fx.Node:
    x, shape = node.args[:2]
    dims = list(range(-len(shape), 0))
    centred = add(aten.sub.Tensor, x, add(aten.mean.dim, x, dims, True))
    weight, bias = _argument(node, 2, "weight"), _argument(node, 3, "bias")
    return _normalized(add, centred, dims, float(_argument(node, 4, "eps", 1e-5)), weight, bias)


def _rms_norm(add: NodeBuilder, node: torch.fx.Node) -> torch.fx.Node:
    x, shape = node.args[:2]
    eps = _argument(node, 3, "eps")
    if eps is None:
        eps = torch.finfo(x.meta["val"].dtype).eps
    return _normalized(add, x, list(range(-len(shape), 0)), float(eps), _argument(node, 2, "weight"), None)


def _attention(add: NodeBuilder, node: torch.fx.Node) -> torch.fx.Node:
    query, key, value = node.args[:3]
    scale = node.kwargs.get("scale")
    if scale is None:
        scale = 1.0 / math.sqrt(query.meta["val"].shape[-1])
    scores = add(aten.matmul.default, add(aten.mul.Tensor, query, float(scale)), add(aten.transpose.int, key, -2, -1))
    return add(aten.matmul.default, add(aten.softmax.int, scores, -1), value)


def _plain_attention(node: torch.fx.Node) -> bool:
    return (
        _argument(node, 3, "attn_mask") is None
        and not _argument(node, 4, "dropout_p", 0.0)
        and not _argument(node, 5, "is_causal", False)
        and not node.kwargs.get("enable_gqa", False)
    )


_SPLITTERS = {
    "aten.layer_norm.default": (_layer_norm, lambda node: True),
    "aten.rms_norm.default": (_rms_norm, lambda node: True),
    "aten.scaled_dot_product_attention.default": (_attention, _plain_attention),
}


class SplitComposites(AnnotationPass):
    """Splits layer/RMS norms and unmasked attention with int8 activations into their arithmetic.

    Runs only where the quantizer says so (``splits_composites``: Ethos-U55/U65 by default).
    """

    def run(self, model: torch.fx.GraphModule, quantizer) -> int:
        if not quantizer.splits_composites:
            return 0
        return split_composites(model, lambda node: int8_activations(quantizer.config_for(node)))


def int8_activations(config) -> bool:
    """Whether a node's quantization config gives it int8 activations."""
    spec = config.output_activation if config is not None else None
    return spec is not None and spec.dtype == torch.int8


def split_composites(model: torch.fx.GraphModule, wants: Callable[[torch.fx.Node], bool]) -> int:
    """Replaces each splittable node ``wants`` accepts by its arithmetic; returns how many."""
    return replace_float_nodes(model, _SPLITTERS, wants)


def split_attention(model: torch.fx.GraphModule, wants: Callable[[torch.fx.Node], bool]) -> int:
    """Replaces each unmasked scaled_dot_product_attention ``wants`` accepts by its matrix products and softmax (the
    queries scaled first); returns how many."""
    name = "aten.scaled_dot_product_attention.default"
    return replace_float_nodes(model, {name: _SPLITTERS[name]}, wants)
