"""cortex_m::quantized_grouped_conv2d: an int8 NHWC input [N, H, W, C_in] convolved in ``groups`` independent groups
(torch's groups, neither 1 nor C_in: those are quantized_conv2d and quantized_depthwise_conv2d) with symmetric int8
weights in OHWI layout [C_out, KH, KW, C_in / groups] -> int8 NHWC [N, OH, OW, C_out]: output channel o reads input
channels [g * C_in / groups, (g + 1) * C_in / groups) with g = o / (C_out / groups).

The kernel runs arm_convolve_wrapper_s8 once per group on that group's channels; the other arguments are
quantized_conv2d's (per-output-channel requantization, [h, w] windows, output clamp), including int16 activations
(a16w8: arm_convolve_wrapper_s16 per group, an int64 bias).
"""

from __future__ import annotations

from etarm.cortex_m.ops.convolution import SCRATCH_ARGUMENT, WINDOW_ARGUMENTS, convolve_nhwc, output_nhwc
from etarm.cortex_m.ops.library import define

ARGUMENTS = (
    "Tensor input, int input_zero_point, Tensor weight, Tensor bias, Tensor multipliers, Tensor shifts, "
    f"{WINDOW_ARGUMENTS}, int groups, int output_zero_point, int activation_min, int activation_max, "
    f"{SCRATCH_ARGUMENT}"
)


def quantized_grouped_conv2d(
    x, x_zp, weight, bias, multipliers, shifts, stride, padding, dilation, groups, zp, lo, hi, scratch_bytes=-1
):
    oihw = weight.permute(0, 3, 1, 2)
    return convolve_nhwc(x, x_zp, oihw, bias, multipliers, shifts, stride, padding, dilation, groups, zp, lo, hi)


def _fake(x, x_zp, weight, bias, multipliers, shifts, stride, padding, dilation, groups, zp, lo, hi, scratch_bytes=-1):
    return output_nhwc(x, weight.shape[1:3], weight.shape[0], stride, padding, dilation)


define("quantized_grouped_conv2d", ARGUMENTS, quantized_grouped_conv2d, _fake)
