"""Elementwise arithmetic between tensors: add, sub, mul (and div, rsub, pow, remainder, fmod).

Each tensor operand is quantized on its own and the output gets its own observer.
Python-number operands were turned into constant tensors beforehand
(``lift_scalar_operands``) so they are quantized like any other operand.
"""

from __future__ import annotations

import torch

from etarm.quantization.annotate_activation import fuse_following_activation
from etarm.quantization.annotate_shared import annotate_shared
from etarm.quantization.annotation import ConfigLookup, annotate, input_spec, is_float_tensor
from etarm.quantization.quantization_config import QuantizationConfig

# Fusable with a following relu/clamp: the integer lowering rescales the result anyway.
ARITHMETIC = (
    "aten.add.Tensor",
    "aten.add_.Tensor",
    "aten.sub.Tensor",
    "aten.sub_.Tensor",
    "aten.mul.Tensor",
    "aten.mul_.Tensor",
    "aten.rsub.Tensor",
)
OTHER_BINARY = (
    "aten.div.Tensor",
    "aten.div_.Tensor",
    "aten.true_divide.Tensor",
    "aten.div.Tensor_mode",
    "aten.floor_divide.default",
    "aten.pow.Tensor_Tensor",
    "aten.remainder.Tensor",
    "aten.fmod.Tensor",
)
# torch.max(a, b) / torch.min(a, b) before they become maximum / minimum: like those, the
# operands and the result share one set of parameters (annotate_shared.py).
EXTREMA = ("aten.max.other", "aten.min.other")
# Overloads whose Python-number operand lift_scalar_operands replaces with a tensor.
SCALAR_OVERLOADS = {
    "aten.add.Scalar": torch.ops.aten.add.Tensor,
    "aten.sub.Scalar": torch.ops.aten.sub.Tensor,
    "aten.mul.Scalar": torch.ops.aten.mul.Tensor,
    "aten.div.Scalar": torch.ops.aten.div.Tensor,
    "aten.rsub.Scalar": torch.ops.aten.rsub.Tensor,
}
LIFTABLE = ARITHMETIC + OTHER_BINARY + tuple(SCALAR_OVERLOADS)


def _operands(node: torch.fx.Node) -> list[torch.fx.Node] | None:
    """The two tensor operands, or None if either is missing or not float."""
    operands = [a for a in node.args[:2] if isinstance(a, torch.fx.Node)]
    if len(operands) != 2 or not all(is_float_tensor(a) for a in operands) or not is_float_tensor(node):
        return None
    return operands


def _input_specs(operands: list[torch.fx.Node], config: QuantizationConfig) -> dict:
    return {
        a: config.constant_spec() if a.op == "get_attr" else input_spec(a, config.input_activation) for a in operands
    }


def annotate_arithmetic(node: torch.fx.Node, config: QuantizationConfig, config_for: ConfigLookup) -> bool:
    operands = _operands(node)
    if operands is None:
        return False
    inputs = _input_specs(operands, config)
    fused = fuse_following_activation(node, config, config_for)
    annotate(node, inputs, None if fused else config.output_activation)
    return True


def annotate_binary(node: torch.fx.Node, config: QuantizationConfig, config_for: ConfigLookup) -> bool:
    operands = _operands(node)
    if operands is None:
        return False
    annotate(node, _input_specs(operands, config), config.output_activation)
    return True


ANNOTATORS = {
    **{name: annotate_arithmetic for name in ARITHMETIC},
    **{name: annotate_binary for name in OTHER_BINARY},
    **{name: annotate_shared for name in EXTREMA},
}
