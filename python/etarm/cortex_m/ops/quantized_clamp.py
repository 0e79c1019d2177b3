"""cortex_m::quantized_clamp: a relu / relu6 / hardtanh / clamp the quantizer left between its own dequantize and
quantize (not fused into the op before it) on int8 data of any shape (or int16, a16w8: zero points 0, bounds within
[-32767, 32767]), requantized into its output's parameters:

    out = clamp(rq(input - input_zero_point, multiplier, shift) + output_zero_point, activation_min, activation_max)

with the scale input_scale / output_scale as multiplier * 2**(shift - 31), shift up to 30 (the activation's observer
sees a narrower range than its input's, so the scale is often above 1), and the activation's bounds in output steps:
TOSA's RESCALE (one rounding half up) and CLAMP. The project's kernel. ``requantize_clamp`` is also the last step of
quantized_mean_hw, which takes the same arguments after its input.
"""

from __future__ import annotations

import torch

from etarm.cortex_m.ops.library import define, rescale

# The arguments after the input (kernels/cortex_m/requantize_clamp.h reads them).
REQUANTIZE_CLAMP_ARGUMENTS = (
    "int input_zero_point, int multiplier, int shift, int output_zero_point, int activation_min, int activation_max"
)
LARGEST_SHIFT = 30


def requantize_clamp(centred, multiplier, shift, out_zp, act_min, act_max, dtype: torch.dtype) -> torch.Tensor:
    """``clamp(rq(centred, multiplier, shift) + out_zp, act_min, act_max)`` of values centred on the input's zero
    point, as ``dtype`` (int8, or int16 for a16w8: the same single rounding with the whole 31-bit multiplier)."""
    return (rescale(centred, multiplier, shift) + out_zp).clamp(act_min, act_max).to(dtype)


def quantized_clamp(x, x_zp, multiplier, shift, out_zp, act_min, act_max):
    return requantize_clamp(x.to(torch.int64) - x_zp, multiplier, shift, out_zp, act_min, act_max, x.dtype)


def _fake(x, *args):
    return torch.empty_like(x)


define("quantized_clamp", f"Tensor input, {REQUANTIZE_CLAMP_ARGUMENTS}", quantized_clamp, _fake, cmsis_nn=False)
