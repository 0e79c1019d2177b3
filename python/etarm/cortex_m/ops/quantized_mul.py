"""cortex_m::quantized_mul: int8 * int8 -> int8 (arm_elementwise_mul_s8), or int16 * int16 -> int16 with zero
points 0 (a16w8: arm_elementwise_mul_s16), shapes broadcast.

The int32 product of the centred operands is rescaled once into the output by
``self_scale * other_scale / output_scale`` (TOSA's MUL followed by one RESCALE).
"""

from __future__ import annotations

import torch

from etarm.cortex_m.ops.library import define, rescale, saturation

ARGUMENTS = (
    "Tensor self, int self_zero_point, Tensor other, int other_zero_point, "
    "int output_zero_point, int output_multiplier, int output_shift"
)


def quantized_mul(a, a_zp, b, b_zp, out_zp, out_mult, out_shift):
    product = (a.to(torch.int64) - a_zp) * (b.to(torch.int64) - b_zp)
    return (rescale(product, out_mult, out_shift) + out_zp).clamp(*saturation(a.dtype)).to(a.dtype)


def _fake(a, a_zp, b, b_zp, out_zp, out_mult, out_shift):
    return torch.empty(torch.broadcast_shapes(a.shape, b.shape), dtype=a.dtype, device=a.device)


define("quantized_mul", ARGUMENTS, quantized_mul, _fake)
