"""What cortex_m::quantized_minimum and quantized_maximum share (kernels/cortex_m/cortex_m_util.h
quantized_extremum_out; the CMSIS-NN snapshot has neither, so the project's kernels run them).

Each operand is rescaled into the output's steps (TOSA RESCALE, one rounding: its scale over the
output's, which may be 1 or more, so shifts go up to EXTREMUM_LARGEST_SHIFT), then the extremum and
the output's zero point. Rounding is monotonic, so this is the rounded extremum of the real values.
When both operands share the output's parameters (the quantizer's default), the scale is exactly 1
(multiplier 2**30, shift 1) and the kernel compares the int8 values as they are. int16 (a16w8) likewise, with
zero points 0 and the symmetric int16 range (library.saturation).
"""

from __future__ import annotations

import torch

from etarm.cortex_m.ops.library import define, rescale, saturation

# TOSA RESCALE's largest scale, 2**29 (kernels/cortex_m/cortex_m_util.cc valid_extremum_operand).
EXTREMUM_LARGEST_SHIFT = 29

ARGUMENTS = (
    "Tensor self, int self_zero_point, int self_multiplier, int self_shift, "
    "Tensor other, int other_zero_point, int other_multiplier, int other_shift, int output_zero_point"
)


def define_extremum(name: str, pick) -> None:
    """Defines ``cortex_m::name``, ``pick`` being torch.minimum or torch.maximum."""

    def compute(a, a_zp, a_mult, a_shift, b, b_zp, b_mult, b_shift, out_zp):
        u = rescale(a.to(torch.int64) - a_zp, a_mult, a_shift)
        v = rescale(b.to(torch.int64) - b_zp, b_mult, b_shift)
        return (pick(u, v) + out_zp).clamp(*saturation(a.dtype)).to(a.dtype)

    def fake(a, a_zp, a_mult, a_shift, b, b_zp, b_mult, b_shift, out_zp):
        return torch.empty(torch.broadcast_shapes(a.shape, b.shape), dtype=a.dtype, device=a.device)

    define(name, ARGUMENTS, compute, fake, cmsis_nn=False)
