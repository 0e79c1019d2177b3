"""The integer semantics the cortex_m convolutions share (quantized_conv2d, quantized_depthwise_conv2d): NHWC
int8 activations, a centred input convolved with int8 weights into an int32 accumulator plus the int32 bias, then
one multiplier/shift per output channel, the output zero point and the fused activation's clamp. int16 activations
(a16w8): zero points 0, an int64 bias and accumulator, CMSIS-NN's s16 requantization (library.rescale_s16)."""

from __future__ import annotations

import torch

from etarm.cortex_m.ops.library import rescale, rescale_s16

# The layout arguments both schemas take after their weights' requantization.
WINDOW_ARGUMENTS = "int[] stride, int[] padding, int[] dilation"
# The last argument of each op with a CMSIS-NN scratch buffer (convolutions, average pool): the scratch bytes CMSIS-NN asks for on the code path of the CPU the program
# is compiled for (passes/record_scratch_sizes.py); -1 until that pass has run, which the kernels refuse.
SCRATCH_ARGUMENT = "int scratch_bytes=-1"


def convolve_nhwc(x, x_zp, weight_oihw, bias, multipliers, shifts, stride, padding, dilation, groups, out_zp, lo, hi):
    """``x`` NHWC int8 or int16, ``weight_oihw`` torch's layout: the requantized NHWC result of ``x``'s type."""
    centred = (x.to(torch.float64) - x_zp).permute(0, 3, 1, 2)
    # |acc| < 2**53 for any kernel a Cortex-M runs, so float64 sums the int8 x int8 (int16) products exactly.
    acc = torch.nn.functional.conv2d(centred, weight_oihw.to(torch.float64), None, stride, padding, dilation, groups)
    acc = acc.round().to(torch.int64).permute(0, 2, 3, 1) + bias.to(torch.int64)
    if x.dtype == torch.int16:
        return rescale_s16(acc, multipliers, shifts).clamp(lo, hi).to(torch.int16).contiguous()
    return (rescale(acc, multipliers, shifts) + out_zp).clamp(lo, hi).to(torch.int8).contiguous()


def output_nhwc(x, kernel_hw, out_channels, stride, padding, dilation):
    """An empty NHWC result of the convolution's shape and ``x``'s type (the fake kernels)."""
    n, h, w, _ = x.shape
    size = [
        (extent + 2 * pad - dil * (k - 1) - 1) // step + 1
        for extent, k, step, pad, dil in zip((h, w), kernel_hw, stride, padding, dilation)
    ]
    return torch.empty((n, *size, out_channels), dtype=x.dtype, device=x.device)
