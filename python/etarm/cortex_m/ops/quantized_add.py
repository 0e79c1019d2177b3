"""cortex_m::quantized_add: int8 + int8 -> int8 (arm_elementwise_add_s8), or int16 + int16 -> int16 with zero
points 0 (a16w8: arm_elementwise_add_s16), shapes broadcast.

Both operands, centred and shifted left by ADD_LEFT_SHIFT of their type, are rescaled to a common int32
scale; their sum is rescaled into the output (TOSA's ADD between two RESCALEs) and saturated (library.saturation).
"""

from __future__ import annotations

import functools

import torch

from etarm.cortex_m.ops.library import define, rescale, saturation

# kernels/cortex_m uses the same constants: cortex_m_util.h kAddLeftShift, kAddLeftShiftS16 (|q| <= 2**15, so
# two shifted int16 values still fit int32).
ADD_LEFT_SHIFT = {torch.int8: 20, torch.int16: 15}

ARGUMENTS = (
    "Tensor self, int self_zero_point, int self_multiplier, int self_shift, "
    "Tensor other, int other_zero_point, int other_multiplier, int other_shift, "
    "int output_zero_point, int output_multiplier, int output_shift"
)


def additive(combine, a, a_zp, a_mult, a_shift, b, b_zp, b_mult, b_shift, out_zp, out_mult, out_shift):
    """``combine`` (a sum or a difference) of the two operands on their common int32 step, rescaled and saturated."""
    left_shift = ADD_LEFT_SHIFT[a.dtype]
    centred_a = (a.to(torch.int64) - a_zp) << left_shift
    centred_b = (b.to(torch.int64) - b_zp) << left_shift
    total = combine(rescale(centred_a, a_mult, a_shift), rescale(centred_b, b_mult, b_shift))
    return (rescale(total, out_mult, out_shift) + out_zp).clamp(*saturation(a.dtype)).to(a.dtype)


def broadcast_fake(a, a_zp, a_mult, a_shift, b, *_):
    return torch.empty(torch.broadcast_shapes(a.shape, b.shape), dtype=a.dtype, device=a.device)


define("quantized_add", ARGUMENTS, functools.partial(additive, torch.add), broadcast_fake)
