"""Convolutions, linear layers and matrix products.

Inputs use the activation spec, weights the (per-output-channel) weight spec and
biases int32 with scale ``input scale * weight scale``, which is what the integer
accumulator holds. A relu/clamp right after the op is fused: the op's output is not
quantized and the activation's output spec covers both (see annotate_activation.py).
"""

from __future__ import annotations

import torch

from etarm.quantization.annotate_activation import fuse_following_activation
from etarm.quantization.annotation import ConfigLookup, annotate, input_spec, is_float_tensor
from etarm.quantization.quantization_config import QuantizationConfig

CONVOLUTIONS = (
    "aten.conv1d.default",
    "aten.conv2d.default",
    "aten.conv3d.default",
    "aten.conv1d.padding",
    "aten.conv2d.padding",
    "aten.conv3d.padding",
    "aten.convolution.default",
)
TRANSPOSED_CONVOLUTIONS = (
    "aten.conv_transpose1d.default",
    "aten.conv_transpose2d.input",
    "aten.conv_transpose3d.input",
)
LINEAR = ("aten.linear.default",)
MATMULS = ("aten.matmul.default", "aten.mm.default", "aten.bmm.default")
ADDMM = ("aten.addmm.default",)


def _argument(node: torch.fx.Node, name: str, default=None):
    """An argument by its schema name, passed positionally or by keyword."""
    for index, argument in enumerate(node.target._schema.arguments):
        if argument.name == name:
            if index < len(node.args):
                return node.args[index]
            return node.kwargs.get(name, default)
    return default


def _weight_axis(node: torch.fx.Node, transposed: bool) -> int | None:
    """The output-channel axis of the weight; None where per-channel cannot apply."""
    if not transposed:
        return 0
    # Transposed weights are (in, out / groups, ...): with groups the out axis repeats.
    return 1 if _argument(node, "groups", 1) == 1 else None


def _annotate_with_weight(node: torch.fx.Node, config: QuantizationConfig, config_for: ConfigLookup, transposed: bool) -> bool:
    activation, weight = node.args[0], node.args[1]
    bias = _argument(node, "bias")
    if not (is_float_tensor(activation) and is_float_tensor(weight)):
        return False
    if node.target == torch.ops.aten.convolution.default and _argument(node, "transposed"):
        transposed = True
    weight_spec = config.weight_spec(_weight_axis(node, transposed))
    inputs = {activation: input_spec(activation, config.input_activation), weight: weight_spec}
    if isinstance(bias, torch.fx.Node) and is_float_tensor(bias):
        inputs[bias] = config.bias_spec(node, activation, weight, weight_spec)
    fused = fuse_following_activation(node, config, config_for)
    annotate(node, inputs, None if fused else config.output_activation)
    return True


def annotate_convolution(node: torch.fx.Node, config: QuantizationConfig, config_for: ConfigLookup) -> bool:
    return _annotate_with_weight(node, config, config_for, transposed=False)


def annotate_transposed_convolution(node: torch.fx.Node, config: QuantizationConfig, config_for: ConfigLookup) -> bool:
    return _annotate_with_weight(node, config, config_for, transposed=True)


def annotate_matmul(node: torch.fx.Node, config: QuantizationConfig, config_for: ConfigLookup) -> bool:
    """Both operands are activations (per-tensor): TOSA MATMUL has one zero point per operand."""
    lhs, rhs = node.args[0], node.args[1]
    if not (is_float_tensor(lhs) and is_float_tensor(rhs)):
        return False
    inputs = {lhs: input_spec(lhs, config.input_activation), rhs: input_spec(rhs, config.input_activation)}
    fused = fuse_following_activation(node, config, config_for)
    annotate(node, inputs, None if fused else config.output_activation)
    return True


def annotate_addmm(node: torch.fx.Node, config: QuantizationConfig, config_for: ConfigLookup) -> bool:
    """beta * self + alpha * (mat1 @ mat2): three per-tensor activations, self included
    (it is added to the product after a rescale, so it needs no derived bias scale)."""
    operands = node.args[:3]
    if not all(is_float_tensor(arg) for arg in operands):
        return False
    inputs = {arg: input_spec(arg, config.input_activation) for arg in operands}
    fused = fuse_following_activation(node, config, config_for)
    annotate(node, inputs, None if fused else config.output_activation)
    return True


ANNOTATORS = {
    **{name: annotate_convolution for name in CONVOLUTIONS + LINEAR},
    **{name: annotate_transposed_convolution for name in TRANSPOSED_CONVOLUTIONS},
    **{name: annotate_matmul for name in MATMULS},
    **{name: annotate_addmm for name in ADDMM},
}
