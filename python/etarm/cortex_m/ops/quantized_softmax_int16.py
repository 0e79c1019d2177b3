"""cortex_m::quantized_softmax_int16: int16 softmax over the last dim (a16w8) -> int16 at the quantizer's fixed
output scale 1/32767, zero point 0 (symmetric [0, 1]). The project's kernel: CMSIS-NN's arm_softmax_s16 of the
snapshot gives 32768 (wrapping) for a dominant entry and about doubles a row whose sum of exps lies just below a
power of two (its reciprocal table's index wraps).

Per row, with d = max(row) - x >= 0 in input steps:
- ``t = rescale(d, multiplier, shift)``: d * input_scale * log2(e) in Q16 (one rounding, half up), so exp(-d * scale)
  is 2**-t with t's integer part n and fraction f;
- 2**-f in Q30 from ``exp2_table`` (257 entries, ``round(2**30 * 2**(-i / 256))``, computed ahead of time) by linear
  interpolation on f's low 8 bits, then shifted right by n (rounded half up; 0 from n = 31): the exps, the row's
  maximum exactly 2**30;
- their int64 sum, its reciprocal ``r = floor(32767 * 2**47 / sum)`` once per row, and each output
  ``(exp * r + 2**46) >> 47``: at most 32767, since no exp exceeds the sum.
Every output is within one step of round(softmax * 32767) (the interpolation's error is below 1e-6 of a value).
"""

from __future__ import annotations

import torch

from etarm.cortex_m.ops.library import define

ARGUMENTS = "Tensor input, Tensor exp2_table, int multiplier, int shift"
OUTPUT_STEPS = 32767  # the output's steps per unit: scale 1 / 32767, zero point 0
OUTPUT_SCALE = 1.0 / OUTPUT_STEPS
FRACTION_BITS = 16  # t's fraction
TABLE_BITS = 8  # the table's index: f's top 8 bits
EXP_BITS = 30  # the exps' fraction (Q30)
RECIPROCAL_BITS = 47


def exp2_table() -> torch.Tensor:
    """2**-(i / 256) in Q30 for i = 0..256, the table the kernel interpolates."""
    steps = torch.arange(2**TABLE_BITS + 1, dtype=torch.float64)
    return torch.round(2.0**EXP_BITS * torch.exp2(-steps / 2**TABLE_BITS)).to(torch.int32)


def quantized_softmax_int16(x, table, multiplier, shift):
    values = x.to(torch.int64)
    diff = values.amax(dim=-1, keepdim=True) - values
    right = 31 - shift
    t = (diff * multiplier + (1 << (right - 1))) >> right
    whole, fraction = t >> FRACTION_BITS, t & (2**FRACTION_BITS - 1)
    index, low = fraction >> (FRACTION_BITS - TABLE_BITS), fraction & (2 ** (FRACTION_BITS - TABLE_BITS) - 1)
    table = table.to(torch.int64)
    above, below = table[index], table[index + 1]
    half = 1 << (FRACTION_BITS - TABLE_BITS - 1)
    value = above - (((above - below) * low + half) >> (FRACTION_BITS - TABLE_BITS))
    kept = whole < 31
    n = torch.where(kept, whole, 0)
    exps = torch.where(kept, (value + ((torch.ones_like(n) << n) >> 1)) >> n, 0)
    total = exps.sum(dim=-1, keepdim=True)
    reciprocal = torch.div(OUTPUT_STEPS << RECIPROCAL_BITS, total, rounding_mode="floor")
    return ((exps * reciprocal + (1 << (RECIPROCAL_BITS - 1))) >> RECIPROCAL_BITS).to(torch.int16)


def _fake(x, table, multiplier, shift):
    return torch.empty_like(x, dtype=torch.int16)


define("quantized_softmax_int16", ARGUMENTS, quantized_softmax_int16, _fake, cmsis_nn=False)
