"""Normalizations, moments and attention, each quantized as ONE op.

layer/group/RMS/batch norm, var/std and scaled_dot_product_attention are lowered whole
for TOSA INT (int32 arithmetic inside, see operators/normalization.py and
operators/integer_softmax.py), so only their activations in and out are quantized:
the statistics, the softmax weights and the scores never pass through 8 or 16 bits.
(EthosUQuantizer on U55/U65 splits layer/RMS norms and unmasked attention into their
arithmetic first, see split_composites.py.)

Their parameters (norm weight and bias, batch-norm running statistics) are no
multiplicands of an integer product: the lowering folds their real values into
integer constants at compile time. They are therefore quantized "exactly": int32 in
+-2**24, symmetric, one scale per row (axis 0), so dequantizing gives the float value
back to float32 precision and the quantized model computes what the float one does.
"""

from __future__ import annotations

import operator

import torch
from torchao.quantization.pt2e import PerChannelMinMaxObserver
from torchao.quantization.pt2e.quantizer import QuantizationSpec

from etarm.quantization.annotation import ConfigLookup, annotate, input_spec, is_float_tensor
from etarm.quantization.quantization_config import QuantizationConfig

# Integers up to 2**24 are exact in float32, in which quantize_per_channel computes; the
# step |row max| / 2**24 is float32's own precision, so parameters come back unchanged.
_PARAMETER_LIMIT = 2**24


class ExactParameterObserver(PerChannelMinMaxObserver):
    """Per-row min/max of a parameter; 1-D parameters (the usual case) are rows of one."""

    def forward(self, x_orig):
        if x_orig.dim() == 1:
            self._forward(x_orig.unsqueeze(1))
            return x_orig
        return self._forward(x_orig)


# The tiny eps only keeps all-zero rows representable (no rescale ever uses these scales).
EXACT_PARAMETER_SPEC = QuantizationSpec(
    dtype=torch.int32,
    quant_min=-_PARAMETER_LIMIT,
    quant_max=_PARAMETER_LIMIT,
    qscheme=torch.per_channel_symmetric,
    ch_axis=0,
    observer_or_fake_quant_ctr=ExactParameterObserver.with_args(
        dtype=torch.int32,
        quant_min=-_PARAMETER_LIMIT,
        quant_max=_PARAMETER_LIMIT,
        qscheme=torch.per_channel_symmetric,
        ch_axis=0,
        eps=2.0**-100,
    ),
)

# Argument positions of the parameters of each norm (ATen schemas).
_PARAMETERS = {
    "aten.layer_norm.default": (2, 3),
    "aten.native_layer_norm.default": (2, 3),
    "aten.group_norm.default": (2, 3),
    "aten.native_group_norm.default": (1, 2),
    "aten.rms_norm.default": (2,),
    "aten.batch_norm.default": (1, 2, 3, 4),
    "aten._native_batch_norm_legit_no_training.default": (1, 2, 3, 4),
}
MOMENTS = (
    "aten.var.default",
    "aten.var.dim",
    "aten.var.correction",
    "aten.std.default",
    "aten.std.dim",
    "aten.std.correction",
)
ATTENTION = ("aten.scaled_dot_product_attention.default",)


def _parameter(node: torch.fx.Node, index: int):
    value = node.args[index] if index < len(node.args) else None
    return value if isinstance(value, torch.fx.Node) and is_float_tensor(value) else None


def annotate_norm(node: torch.fx.Node, config: QuantizationConfig, config_for: ConfigLookup) -> bool:
    source = node.args[0]
    if not is_float_tensor(source) or config.output_activation is None:
        return False
    inputs = {source: input_spec(source, config.input_activation)}
    for index in _PARAMETERS[str(node.target)]:
        parameter = _parameter(node, index)
        if parameter is not None:
            inputs[parameter] = EXACT_PARAMETER_SPEC
    if isinstance(node.meta.get("val"), (list, tuple)):
        # Tuple results (the native_* forms): item 0 is the normalized tensor.
        annotate(node, inputs, None)
        for user in node.users:
            if user.op == "call_function" and user.target is operator.getitem and user.args[1] == 0:
                annotate(user, {}, config.output_activation)
        return True
    annotate(node, inputs, config.output_activation)
    return True


def annotate_moment(node: torch.fx.Node, config: QuantizationConfig, config_for: ConfigLookup) -> bool:
    source = node.args[0]
    if not is_float_tensor(source) or not is_float_tensor(node):
        return False
    annotate(node, {source: input_spec(source, config.input_activation)}, config.output_activation)
    return True


def annotate_attention(node: torch.fx.Node, config: QuantizationConfig, config_for: ConfigLookup) -> bool:
    """query, key, value and a float mask quantized like activations; a bool mask stays bool."""
    operands = list(node.args[:3])
    mask = node.args[3] if len(node.args) > 3 else node.kwargs.get("attn_mask")
    if not all(is_float_tensor(a) for a in operands) or not is_float_tensor(node):
        return False
    if is_float_tensor(mask):
        operands.append(mask)
    inputs = {}
    for operand in operands:
        if operand not in inputs:
            inputs[operand] = input_spec(operand, config.input_activation)
    annotate(node, inputs, config.output_activation)
    return True


ANNOTATORS = {
    **{name: annotate_norm for name in _PARAMETERS},
    **{name: annotate_moment for name in MOMENTS},
    **{name: annotate_attention for name in ATTENTION},
}
