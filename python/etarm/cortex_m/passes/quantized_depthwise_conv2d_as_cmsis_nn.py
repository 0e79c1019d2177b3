"""QuantizedDepthwiseConv2dAsCmsisNn: a quantized depthwise nn.Conv2d (groups == in_channels, any channel
multiplier) as cortex_m.quantized_depthwise_conv2d, NHWC between two permutes, its weights stored in CMSIS-NN's
[1, KH, KW, C_out] layout (quantized_convolution.py says what is matched)."""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops

from etarm.cortex_m import int4
from etarm.cortex_m.passes.quantized_convolution import QuantizedConvolutionAsCmsisNn


class QuantizedDepthwiseConv2dAsCmsisNn(QuantizedConvolutionAsCmsisNn):
    """Replaces dequantize -> convolution (groups == in channels) [-> relu/hardtanh/clamp] -> quantize (int8) by
    permute -> cortex_m.quantized_depthwise_conv2d (arm_depthwise_conv_wrapper_s8) -> permute."""

    target = exir_ops.edge.cortex_m.quantized_depthwise_conv2d.default
    target_s4 = exir_ops.edge.cortex_m.quantized_depthwise_conv2d_s4.default  # int4 weights: the _wrapper_s4
    activation_types = (torch.int8, torch.int16)  # arm_depthwise_conv_wrapper_s8 / _s16

    def handles(self, groups: int, in_channels: int) -> bool:
        return groups == in_channels > 1

    def cmsis_nn_weight(self, weight: torch.Tensor) -> torch.Tensor:
        return weight.permute(1, 2, 3, 0)  # [C_out, 1, KH, KW] -> [1, KH, KW, C_out]

    def takes_int4(self, batches: int, in_channels: int, out_channels: int, dilation) -> bool:
        return int4.depthwise_s4_exact(in_channels, out_channels // in_channels, batches, dilation)

    def extra_arguments(self, groups: int, in_channels: int, out_channels: int) -> tuple:
        return (out_channels // in_channels,)
