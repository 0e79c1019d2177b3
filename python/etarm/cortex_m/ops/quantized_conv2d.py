"""cortex_m::quantized_conv2d: an int8 NHWC input [N, H, W, C_in] convolved with symmetric int8 weights in OHWI
layout [C_out, KH, KW, C_in] -> int8 NHWC [N, OH, OW, C_out] (arm_convolve_wrapper_s8).

Arguments: the int32 bias [C_out] at scale input_scale * weight_scale[o], int32 multipliers/shifts [C_out] (one per
output channel, also for per-tensor weights), stride/padding/dilation as [h, w], the output zero point and the fused
activation's clamp range in output steps, and the scratch bytes CMSIS-NN asks for on the program's code path
(passes/record_scratch_sizes.py). The pass keeps torch's NCHW at the op's boundary with permute_copy nodes and stores
the weights already in OHWI.

cortex_m::quantized_conv2d_s4 (4w8a, arm_convolve_wrapper_s4): the same with int4 weights packed two per byte
(int4.py), an int8 [ceil(C_out * KH * KW * C_in / 2)] constant, and their OHWI shape as ``weight_shape``; int8
activations only (CMSIS-NN has no s16 x s4 kernel).
"""

from __future__ import annotations

from etarm.cortex_m import int4
from etarm.cortex_m.ops.convolution import SCRATCH_ARGUMENT, WINDOW_ARGUMENTS, convolve_nhwc, output_nhwc
from etarm.cortex_m.ops.library import define

ARGUMENTS = (
    "Tensor input, int input_zero_point, Tensor weight, Tensor bias, Tensor multipliers, Tensor shifts, "
    f"{WINDOW_ARGUMENTS}, int output_zero_point, int activation_min, int activation_max, "
    f"{SCRATCH_ARGUMENT}"
)


def quantized_conv2d(
    x, x_zp, weight, bias, multipliers, shifts, stride, padding, dilation, out_zp, lo, hi, scratch_bytes=-1
):
    oihw = weight.permute(0, 3, 1, 2)
    return convolve_nhwc(x, x_zp, oihw, bias, multipliers, shifts, stride, padding, dilation, 1, out_zp, lo, hi)


def _fake(x, x_zp, weight, bias, multipliers, shifts, stride, padding, dilation, out_zp, lo, hi, scratch_bytes=-1):
    return output_nhwc(x, weight.shape[1:3], weight.shape[0], stride, padding, dilation)


define("quantized_conv2d", ARGUMENTS, quantized_conv2d, _fake)

ARGUMENTS_S4 = ARGUMENTS.replace(f", {SCRATCH_ARGUMENT}", f", int[] weight_shape, {SCRATCH_ARGUMENT}")


def quantized_conv2d_s4(
    x, x_zp, packed, bias, multipliers, shifts, stride, padding, dilation, out_zp, lo, hi, shape, scratch_bytes=-1
):
    weight = int4.unpack(packed, shape)
    return quantized_conv2d(x, x_zp, weight, bias, multipliers, shifts, stride, padding, dilation, out_zp, lo, hi)


def _fake_s4(x, x_zp, packed, bias, multipliers, shifts, stride, padding, dilation, out_zp, lo, hi, shape, scratch=-1):
    return output_nhwc(x, shape[1:3], shape[0], stride, padding, dilation)


define("quantized_conv2d_s4", ARGUMENTS_S4, quantized_conv2d_s4, _fake_s4)
