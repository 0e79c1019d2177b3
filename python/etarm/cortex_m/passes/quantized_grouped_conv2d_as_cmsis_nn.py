"""QuantizedGroupedConv2dAsCmsisNn: a quantized grouped nn.Conv2d (groups > 1, not depthwise) as
cortex_m.quantized_grouped_conv2d, NHWC between two permutes, its weights stored in OHWI [C_out, KH, KW, C_in / groups]
(quantized_convolution.py says what is matched). CMSIS-NN has no grouped convolution: the kernel calls
arm_convolve_wrapper_s8 (int16 activations, a16w8: _s16) per group, so the graph keeps one op instead of slices,
convolutions and a concat."""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops

from etarm.cortex_m.passes.quantized_convolution import QuantizedConvolutionAsCmsisNn


class QuantizedGroupedConv2dAsCmsisNn(QuantizedConvolutionAsCmsisNn):
    """Replaces dequantize -> convolution (1 < groups != in channels) [-> relu/hardtanh/clamp] -> quantize (int8 or
    int16) by permute -> cortex_m.quantized_grouped_conv2d (arm_convolve_wrapper_s8 / _s16 per group) -> permute."""

    target = exir_ops.edge.cortex_m.quantized_grouped_conv2d.default
    activation_types = (torch.int8, torch.int16)  # arm_convolve_wrapper_s8 / _s16 per group

    def handles(self, groups: int, in_channels: int) -> bool:
        return 1 < groups != in_channels

    def cmsis_nn_weight(self, weight: torch.Tensor) -> torch.Tensor:
        return weight.permute(0, 2, 3, 1)  # OIHW -> OHWI, I being each group's input channels

    def extra_arguments(self, groups: int, in_channels: int, out_channels: int) -> tuple:
        return (groups,)
