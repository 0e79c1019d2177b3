"""cortex_m::quantized_mean_hw: the mean over H and W of an int8 NHWC input [N, H, W, C] -> int8 [N, C] (or int16 ->
int16, a16w8: zero points 0) (torch's
mean over dims (2, 3) of an NCHW tensor, adaptive_avg_pool2d to 1x1, global average pooling), its output quantized
unlike its input:

    out[n, c] = clamp(rq(sum_{h, w} (input[n, h, w, c] - input_zero_point), multiplier, shift) + output_zero_point,
                      activation_min, activation_max)

the sum exact in int32 (at most 2**23 taps; 2**16 for int16), one rounding half up with the scale input_scale / (H * W * output_scale)
as multiplier * 2**(shift - 31), shift up to 30: TOSA's REDUCE_SUM and one RESCALE (quantized_clamp's
requantize_clamp), so no double rounding (CMSIS-NN's arm_avgpool_s8 rounds the average itself, then a rescale would
round again). The project's kernel.
"""

from __future__ import annotations

import torch

from etarm.cortex_m.ops.library import define
from etarm.cortex_m.ops.quantized_clamp import REQUANTIZE_CLAMP_ARGUMENTS, requantize_clamp

# Taps the kernel's int32 sum holds exactly, per input type: 255 * 2**23 < 2**31, 32767 * 2**16 < 2**31.
MOST_TAPS = {torch.int8: 2**23, torch.int16: 2**16}


def quantized_mean_hw(x, x_zp, multiplier, shift, out_zp, act_min, act_max):
    sums = (x.to(torch.int64) - x_zp).sum(dim=(1, 2))
    return requantize_clamp(sums, multiplier, shift, out_zp, act_min, act_max, x.dtype)


def _fake(x, x_zp, multiplier, shift, out_zp, act_min, act_max):
    return torch.empty((x.shape[0], x.shape[3]), dtype=x.dtype, device=x.device)


define("quantized_mean_hw", f"Tensor input, {REQUANTIZE_CLAMP_ARGUMENTS}", quantized_mean_hw, _fake, cmsis_nn=False)
