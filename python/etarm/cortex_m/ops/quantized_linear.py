"""cortex_m::quantized_linear: int8 input [..., K] times a symmetric int8 weight [N, K] -> int8 [..., N]
(arm_fully_connected_s8 per tensor, arm_convolve_1x1_s8_fast per channel); an int16 input gives an int16
result (a16w8: arm_fully_connected_s16, once per output channel for per-channel weights).

Arguments: the optional bias [N] at scale input_scale * weight_scale[n] (int32; int64 for int16 inputs), the
int32 kernel_sum [N] (the weights' row sums, which CMSIS-NN's MVE s8 fully-connected reads; computed
ahead of time; empty for int16 inputs), int32 multipliers/shifts of length 1 (per-tensor weights) or N (per
channel), the output zero point (0 for int16) and the fused activation's clamp range in output steps.

cortex_m::quantized_linear_s4 (4w8a: arm_fully_connected_s4 per tensor, arm_convolve_1x1_s4_fast per channel): int8
input and output, the weight's int4 values packed two per byte (int4.py), an int8 [ceil(N * K / 2)] constant, its
[N, K] shape as ``weight_shape``; no kernel_sum (the s4 kernels sum the weights themselves).
"""

from __future__ import annotations

import torch

from etarm.cortex_m import int4
from etarm.cortex_m.ops.library import define, rescale, rescale_s16

ARGUMENTS = (
    "Tensor input, int input_zero_point, Tensor weight, Tensor? bias, Tensor kernel_sum, "
    "Tensor multipliers, Tensor shifts, int output_zero_point, int activation_min, int activation_max"
)


def quantized_linear(x, x_zp, weight, bias, kernel_sum, multipliers, shifts, out_zp, act_min, act_max):
    acc = (x.to(torch.int64) - x_zp) @ weight.to(torch.int64).T
    if bias is not None:
        acc = acc + bias.to(torch.int64)
    if x.dtype == torch.int16:
        return rescale_s16(acc, multipliers, shifts).clamp(act_min, act_max).to(torch.int16)
    # Per output channel: 31 - shift is at most 62, so int64 holds the product.
    return (rescale(acc, multipliers, shifts) + out_zp).clamp(act_min, act_max).to(torch.int8)


def _fake(x, x_zp, weight, bias, kernel_sum, multipliers, shifts, out_zp, act_min, act_max):
    return torch.empty((*x.shape[:-1], weight.shape[0]), dtype=x.dtype, device=x.device)


define("quantized_linear", ARGUMENTS, quantized_linear, _fake)

ARGUMENTS_S4 = (
    "Tensor input, int input_zero_point, Tensor weight, Tensor? bias, Tensor multipliers, Tensor shifts, "
    "int output_zero_point, int activation_min, int activation_max, int[] weight_shape"
)


def quantized_linear_s4(x, x_zp, packed, bias, multipliers, shifts, out_zp, act_min, act_max, shape):
    weight = int4.unpack(packed, shape)
    return quantized_linear(x, x_zp, weight, bias, None, multipliers, shifts, out_zp, act_min, act_max)


def _fake_s4(x, x_zp, packed, bias, multipliers, shifts, out_zp, act_min, act_max, shape):
    return torch.empty((*x.shape[:-1], shape[0]), dtype=x.dtype, device=x.device)


define("quantized_linear_s4", ARGUMENTS_S4, quantized_linear_s4, _fake_s4)
