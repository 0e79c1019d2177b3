"""QuantizedConv2dAsCmsisNn: a quantized nn.Conv2d with groups == 1 (int8 activations, int8 weights per tensor or
per output channel, int32 bias) as cortex_m.quantized_conv2d, NHWC between two permutes, its weights stored in
CMSIS-NN's OHWI layout (quantized_convolution.py says what is matched)."""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops

from etarm.cortex_m.passes.quantized_convolution import QuantizedConvolutionAsCmsisNn


class QuantizedConv2dAsCmsisNn(QuantizedConvolutionAsCmsisNn):
    """Replaces dequantize -> convolution (groups 1) [-> relu/hardtanh/clamp] -> quantize (int8) by
    permute -> cortex_m.quantized_conv2d (arm_convolve_wrapper_s8) -> permute."""

    target = exir_ops.edge.cortex_m.quantized_conv2d.default
    target_s4 = exir_ops.edge.cortex_m.quantized_conv2d_s4.default  # int4 weights: the _wrapper_s4
    activation_types = (torch.int8, torch.int16)  # arm_convolve_wrapper_s8 / _s16

    def handles(self, groups: int, in_channels: int) -> bool:
        # Depthwise and other grouped ones are QuantizedDepthwiseConv2dAsCmsisNn's and QuantizedGroupedConv2dAsCmsisNn's.
        return groups == 1

    def cmsis_nn_weight(self, weight: torch.Tensor) -> torch.Tensor:
        return weight.permute(0, 2, 3, 1)  # OIHW -> OHWI
