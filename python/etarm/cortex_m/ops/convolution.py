"""The integer semantics the cortex_m convolutions share (quantized_conv2d, quantized_depthwise_conv2d): NHWC
int8 activations, a centred input convolved with int8 weights into an int32 accumulator plus the int32 bias, then
one multiplier/shift per output channel, the output zero point and the fused activation's clamp."""

from __future__ import annotations

import torch

from etarm.cortex_m.ops.library import rescale

# The layout arguments both schemas take after their weights' requantization.
WINDOW_ARGUMENTS = "int[] stride, int[] padding, int[] dilation"


def convolve_nhwc(x, x_zp, weight_oihw, bias, multipliers, shifts, stride, padding, dilation, groups, out_zp, lo, hi):
    """``x`` NHWC int8, ``weight_oihw`` torch's layout: the requantized int8 NHWC result."""
    centred = (x.to(torch.float64) - x_zp).permute(0, 3, 1, 2)
    # |acc| < 2**53 for any kernel a Cortex-M runs, so float64 sums the int8 products exactly.
    acc = torch.nn.functional.conv2d(centred, weight_oihw.to(torch.float64), None, stride, padding, dilation, groups)
    acc = acc.round().to(torch.int64).permute(0, 2, 3, 1) + bias.to(torch.int64)
    return (rescale(acc, multipliers, shifts) + out_zp).clamp(lo, hi).to(torch.int8).contiguous()


def output_nhwc(x, kernel_hw, out_channels, stride, padding, dilation):
    """An empty int8 NHWC result of the convolution's shape (the fake kernels)."""
    n, h, w, _ = x.shape
    size = [
        (extent + 2 * pad - dil * (k - 1) - 1) // step + 1
        for extent, k, step, pad, dil in zip((h, w), kernel_hw, stride, padding, dilation)
    ]
    return torch.empty((n, *size, out_channels), dtype=torch.int8, device=x.device)
