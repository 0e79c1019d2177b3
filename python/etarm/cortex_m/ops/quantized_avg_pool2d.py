"""cortex_m::quantized_avg_pool2d: the average over each window of an int8 NHWC input [N, H, W, C] ->
int8 NHWC [N, OH, OW, C] (arm_avgpool_s8), then the fused activation's clamp; int16 -> int16 likewise (a16w8:
arm_avgpool_s16).

As CMSIS-NN computes it: the window's taps inside the input (padding is not counted) summed as raw integer values,
divided by their count rounding half away from zero. Input and output share their quantization (no rescale, no zero
point). No ceil mode. Windows as [h, w]; the last argument is the scratch bytes CMSIS-NN asks for on the program's
code path (passes/record_scratch_sizes.py).
"""

from __future__ import annotations

import torch

from etarm.cortex_m.ops.convolution import SCRATCH_ARGUMENT
from etarm.cortex_m.ops.library import define
from etarm.cortex_m.ops.quantized_max_pool2d import ARGUMENTS, pooled_shape


def quantized_avg_pool2d(x, kernel_size, stride, padding, act_min, act_max, scratch_bytes=-1):
    nchw = x.to(torch.float64).permute(0, 3, 1, 2)
    ones = torch.ones_like(nchw[:, :1])
    window = (kernel_size, stride, padding)
    # Sums and tap counts as k*k * average; float64 holds them exactly.
    taps = kernel_size[0] * kernel_size[1]
    sums = (torch.nn.functional.avg_pool2d(nchw, *window, count_include_pad=True) * taps).round()
    counts = (torch.nn.functional.avg_pool2d(ones, *window, count_include_pad=True) * taps).round()
    sums, counts = sums.to(torch.int64), counts.to(torch.int64)
    half = counts // 2
    rounded = torch.where(sums > 0, sums + half, sums - half)
    average = torch.sign(rounded) * (rounded.abs() // counts)  # C's division truncates toward zero
    return average.permute(0, 2, 3, 1).clamp(act_min, act_max).to(x.dtype).contiguous()


def _fake(x, kernel_size, stride, padding, act_min, act_max, scratch_bytes=-1):
    return torch.empty(pooled_shape(x, kernel_size, stride, padding), dtype=x.dtype, device=x.device)


define("quantized_avg_pool2d", f"{ARGUMENTS}, {SCRATCH_ARGUMENT}", quantized_avg_pool2d, _fake)
