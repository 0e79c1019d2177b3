"""cortex_m::quantized_bmm: a matrix product of two quantized activations (torch.bmm, torch.matmul, an mm of two
activations), int8 x int8 -> int8, or int16 x int16 -> int16 with zero points 0 (a16w8). The project's kernel: the
CMSIS-NN snapshot has no arm_batch_matmul_s8.

``self`` is [B, M, K] (or [M, K]), ``other`` [B, K, N] (or [K, N]); with ``transpose_other`` it is [B, N, K] (a k^T
that needs no transpose op). A batch of 1 broadcasts against the other operand's. TOSA's MATMUL (int32 accumulator
for int8, int48 for int16) of the centred operands and one RESCALE by ``self_scale * other_scale / output_scale``:
``round_half_up(acc * multiplier * 2**(shift - 31))``, single rounding. For int16 the multiplier is TOSA's 16-bit one
(scale32 false, as TOSA rescales int48) in its top bits: its low 16 bits are zero and the shift may reach -47.
"""

from __future__ import annotations

import torch

from etarm.cortex_m.ops.library import define, rescale, saturation

ARGUMENTS = (
    "Tensor self, int self_zero_point, Tensor other, int other_zero_point, bool transpose_other, "
    "int output_zero_point, int multiplier, int shift"
)


def quantized_bmm(a, a_zp, b, b_zp, transpose_other, out_zp, multiplier, shift):
    rhs = b.to(torch.int64) - b_zp
    acc = torch.matmul(a.to(torch.int64) - a_zp, rhs.transpose(-2, -1) if transpose_other else rhs)
    if a.dtype == torch.int16:
        # acc may use 47 bits: the 15-bit multiplier keeps the product within int64 (the same value exactly).
        rounded = rescale(acc, multiplier >> 16, shift + 16)
    else:
        rounded = rescale(acc, multiplier, shift)
    return (rounded + out_zp).clamp(*saturation(a.dtype)).to(a.dtype)


def _fake(a, a_zp, b, b_zp, transpose_other, out_zp, multiplier, shift):
    n = b.shape[-2] if transpose_other else b.shape[-1]
    batch = () if a.dim() == 2 else (max(a.shape[0], b.shape[0]),)
    return torch.empty((*batch, a.shape[-2], n), dtype=a.dtype, device=a.device)


define("quantized_bmm", ARGUMENTS, quantized_bmm, _fake, cmsis_nn=False)
