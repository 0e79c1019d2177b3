"""cortex_m::quantized_max_pool2d: the maximum over each window of an int8 NHWC input [N, H, W, C] ->
int8 NHWC [N, OH, OW, C] (arm_max_pool_s8), then the fused activation's clamp; int16 -> int16 likewise (a16w8:
arm_max_pool_s16).

Input and output share their quantization (a maximum needs no rescale), so the op takes no zero point. Padded taps
are skipped (torch pads a max pool with -inf); no dilation, no ceil mode. Windows as [h, w].
"""

from __future__ import annotations

import torch

from etarm.cortex_m.ops.library import define

ARGUMENTS = "Tensor input, int[] kernel_size, int[] stride, int[] padding, int activation_min, int activation_max"


def quantized_max_pool2d(x, kernel_size, stride, padding, act_min, act_max):
    nchw = x.to(torch.float32).permute(0, 3, 1, 2)  # int8 and int16 values are exact in float
    pooled = torch.nn.functional.max_pool2d(nchw, kernel_size, stride, padding)
    return pooled.permute(0, 2, 3, 1).clamp(act_min, act_max).to(x.dtype).contiguous()


def pooled_shape(x, kernel_size, stride, padding) -> tuple[int, ...]:
    """[N, OH, OW, C] of a 2-D pool of the NHWC ``x`` (no ceil mode)."""
    n, h, w, c = x.shape
    size = [(e + 2 * p - k) // s + 1 for e, k, s, p in zip((h, w), kernel_size, stride, padding)]
    return (n, *size, c)


def _fake(x, kernel_size, stride, padding, act_min, act_max):
    return torch.empty(pooled_shape(x, kernel_size, stride, padding), dtype=x.dtype, device=x.device)


define("quantized_max_pool2d", ARGUMENTS, quantized_max_pool2d, _fake)
