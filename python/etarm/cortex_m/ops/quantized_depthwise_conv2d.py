"""cortex_m::quantized_depthwise_conv2d: each channel of an int8 NHWC input [N, H, W, C_in] convolved on its own
with ``depth_multiplier`` filters: symmetric int8 weights [1, KH, KW, C_out], C_out = C_in * depth_multiplier, output
channel o reading input channel o // depth_multiplier (torch's groups == C_in) -> int8 NHWC [N, OH, OW, C_out]
(arm_depthwise_conv_wrapper_s8).

The other arguments are quantized_conv2d's (per-output-channel requantization, [h, w] windows, output clamp).

cortex_m::quantized_depthwise_conv2d_s4 (4w8a, arm_depthwise_conv_wrapper_s4): the same with int4 weights packed two
per byte (int4.py), an int8 [ceil(KH * KW * C_out / 2)] constant, and their [1, KH, KW, C_out] shape as
``weight_shape``; int8 activations only.
"""

from __future__ import annotations

from etarm.cortex_m import int4
from etarm.cortex_m.ops.convolution import SCRATCH_ARGUMENT, WINDOW_ARGUMENTS, convolve_nhwc, output_nhwc
from etarm.cortex_m.ops.library import define

ARGUMENTS = (
    "Tensor input, int input_zero_point, Tensor weight, Tensor bias, Tensor multipliers, Tensor shifts, "
    f"{WINDOW_ARGUMENTS}, int depth_multiplier, int output_zero_point, int activation_min, int activation_max, "
    f"{SCRATCH_ARGUMENT}"
)


def quantized_depthwise_conv2d(
    x, x_zp, weight, bias, multipliers, shifts, stride, padding, dilation, mult, zp, lo, hi, scratch_bytes=-1
):
    oihw = weight.permute(3, 0, 1, 2)  # [C_out, 1, KH, KW]
    groups = x.shape[3]
    return convolve_nhwc(x, x_zp, oihw, bias, multipliers, shifts, stride, padding, dilation, groups, zp, lo, hi)


def _fake(x, x_zp, weight, bias, multipliers, shifts, stride, padding, dilation, mult, zp, lo, hi, scratch_bytes=-1):
    return output_nhwc(x, weight.shape[1:3], weight.shape[3], stride, padding, dilation)


define("quantized_depthwise_conv2d", ARGUMENTS, quantized_depthwise_conv2d, _fake)

ARGUMENTS_S4 = ARGUMENTS.replace(f", {SCRATCH_ARGUMENT}", f", int[] weight_shape, {SCRATCH_ARGUMENT}")


def quantized_depthwise_conv2d_s4(
    x, x_zp, packed, bias, multipliers, shifts, stride, padding, dilation, mult, zp, lo, hi, shape, scratch_bytes=-1
):
    weight = int4.unpack(packed, shape)
    return quantized_depthwise_conv2d(
        x, x_zp, weight, bias, multipliers, shifts, stride, padding, dilation, mult, zp, lo, hi
    )


def _fake_s4(
    x, x_zp, packed, bias, multipliers, shifts, stride, padding, dilation, mult, zp, lo, hi, shape, scratch=-1
):
    return output_nhwc(x, shape[1:3], shape[3], stride, padding, dilation)


define("quantized_depthwise_conv2d_s4", ARGUMENTS_S4, quantized_depthwise_conv2d_s4, _fake_s4)
