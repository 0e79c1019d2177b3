"""cortex_m::quantized_transpose_conv2d: an int8 NHWC input [N, H, W, C_in] scattered through symmetric int8 weights
stored [C_out, KH, KW, C_in] (CMSIS-NN's layout, torch's [C_in, C_out, KH, KW] permuted ahead of time) -> int8 NHWC
[N, OH, OW, C_out] with OH = (H - 1) * stride_h - 2 * padding_h + KH + output_padding_h (arm_transpose_conv_s8).

  acc[n, y * sh - ph + i, x * sw - pw + j, o] += (input[n, y, x, c] - input_zero_point) * weight[o, i, j, c]
  (taps landing outside the output dropped), plus bias[o], then one multiplier/shift per output channel, the output
  zero point and the fused activation's clamp: TOSA's TRANSPOSE_CONV2D (out_pad top -ph, bottom output_padding - ph)
  and RESCALE with single rounding. groups 1 and dilation 1 only.

int16 activations (a16w8): zero points 0, an int64 bias and accumulator, CMSIS-NN's s16 requantization
(library.rescale_s16); the snapshot has no s16 transposed convolution, so that kernel is the project's.
The scratch bytes (s8 only: CMSIS-NN's column buffer and its int32 image) are recorded by
passes/record_scratch_sizes.py.
"""

from __future__ import annotations

import torch

from etarm.cortex_m.ops.convolution import SCRATCH_ARGUMENT
from etarm.cortex_m.ops.library import define, rescale, rescale_s16

ARGUMENTS = (
    "Tensor input, int input_zero_point, Tensor weight, Tensor bias, Tensor multipliers, Tensor shifts, "
    "int[] stride, int[] padding, int[] output_padding, int output_zero_point, int activation_min, "
    f"int activation_max, {SCRATCH_ARGUMENT}"
)


def output_hw(in_hw, kernel_hw, stride, padding, output_padding) -> list[int]:
    """The output's [OH, OW] (torch's ConvTranspose2d with dilation 1)."""
    return [
        (extent - 1) * step - 2 * pad + k + extra
        for extent, k, step, pad, extra in zip(in_hw, kernel_hw, stride, padding, output_padding)
    ]


def quantized_transpose_conv2d(
    x, x_zp, weight, bias, multipliers, shifts, stride, padding, output_padding, out_zp, lo, hi, scratch_bytes=-1
):
    centred = (x.to(torch.float64) - x_zp).permute(0, 3, 1, 2)
    iohw = weight.to(torch.float64).permute(3, 0, 1, 2)  # [C_out, KH, KW, C_in] -> torch's [C_in, C_out, KH, KW]
    # Every sum of int8 x int8 (int16) products a Cortex-M runs stays below 2**53: float64 adds them exactly.
    acc = torch.nn.functional.conv_transpose2d(centred, iohw, None, stride, padding, output_padding)
    acc = acc.round().to(torch.int64).permute(0, 2, 3, 1) + bias.to(torch.int64)
    if x.dtype == torch.int16:
        return rescale_s16(acc, multipliers, shifts).clamp(lo, hi).to(torch.int16).contiguous()
    return (rescale(acc, multipliers, shifts) + out_zp).clamp(lo, hi).to(torch.int8).contiguous()


def _fake(
    x, x_zp, weight, bias, multipliers, shifts, stride, padding, output_padding, out_zp, lo, hi, scratch_bytes=-1
):
    size = output_hw(x.shape[1:3], weight.shape[1:3], stride, padding, output_padding)
    return torch.empty((x.shape[0], *size, weight.shape[0]), dtype=x.dtype, device=x.device)


# int8: arm_transpose_conv_s8; int16: the project's kernel (the report says which).
define("quantized_transpose_conv2d", ARGUMENTS, quantized_transpose_conv2d, _fake, cmsis_nn_int16=False)
