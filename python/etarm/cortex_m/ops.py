"""The ``cortex_m::`` operator schemas: what the Cortex-M passes emit and kernels/cortex_m runs.

Each op has a functional form (what the passes insert), an out variant (what ExecuTorch's
to_executorch turns it into and what the .pte names: ``cortex_m::quantized_add.out``), an
eager implementation (the integer semantics the C++ kernel must match bit for bit, so a
program with these ops still runs in Python) and a fake kernel (shapes and dtypes for export).

Convention: a quantized operand is followed by its zero point, multiplier and shift; the
multiplier and shift encode a real scale as ``multiplier * 2**(shift - 31)`` (CMSIS-NN's
convention), computed ahead of time (requantize.py). Values round once, half up (TOSA
RESCALE's SINGLE_ROUND).
"""

from __future__ import annotations

import torch
from torch.library import Library

NAMESPACE = "cortex_m"
# Operands of a quantized add are shifted left by this before their rescale (kernels/cortex_m
# uses the same constant: cortex_m_util.h kAddLeftShift).
ADD_LEFT_SHIFT = 20

_QUANTIZED_ADD_ARGS = (
    "Tensor self, int self_zero_point, int self_multiplier, int self_shift, "
    "Tensor other, int other_zero_point, int other_multiplier, int other_shift, "
    "int output_zero_point, int output_multiplier, int output_shift"
)

_lib = Library(NAMESPACE, "DEF")
_lib.define(f"quantized_add({_QUANTIZED_ADD_ARGS}) -> Tensor")
_lib.define(f"quantized_add.out({_QUANTIZED_ADD_ARGS}, *, Tensor(a!) out) -> Tensor(a!)")


def rescale(values: torch.Tensor, multiplier: int, shift: int) -> torch.Tensor:
    """int64 ``values * multiplier * 2**(shift - 31)``, rounded half up (one rounding)."""
    right = 31 - shift
    return (values * multiplier + (1 << (right - 1))) >> right


def _quantized_add(a, a_zp, a_mult, a_shift, b, b_zp, b_mult, b_shift, out_zp, out_mult, out_shift):
    centred_a = (a.to(torch.int64) - a_zp) << ADD_LEFT_SHIFT
    centred_b = (b.to(torch.int64) - b_zp) << ADD_LEFT_SHIFT
    total = rescale(centred_a, a_mult, a_shift) + rescale(centred_b, b_mult, b_shift)
    return (rescale(total, out_mult, out_shift) + out_zp).clamp(-128, 127).to(torch.int8)


def _quantized_add_out(a, a_zp, a_mult, a_shift, b, b_zp, b_mult, b_shift, out_zp, out_mult, out_shift, *, out):
    result = _quantized_add(a, a_zp, a_mult, a_shift, b, b_zp, b_mult, b_shift, out_zp, out_mult, out_shift)
    out.resize_(result.shape)
    return out.copy_(result)


def _quantized_add_fake(a, a_zp, a_mult, a_shift, b, b_zp, b_mult, b_shift, out_zp, out_mult, out_shift):
    return torch.empty(torch.broadcast_shapes(a.shape, b.shape), dtype=torch.int8, device=a.device)


_lib.impl("quantized_add", _quantized_add, "CompositeExplicitAutograd")
_lib.impl("quantized_add.out", _quantized_add_out, "CompositeExplicitAutograd")
torch.library.register_fake(f"{NAMESPACE}::quantized_add", _quantized_add_fake, lib=_lib)


# cortex_m::quantized_linear: int8 input [..., K], int8 symmetric weight [N, K], optional int32 bias [N] at
# scale input_scale * weight_scale[n], int32 kernel_sum [N] (the weights' row sums, which CMSIS-NN's MVE
# fully-connected reads; computed ahead of time), int32 multipliers/shifts of length 1 (per-tensor weights)
# or N (per-channel), the output zero point and the fused activation's clamp range in output steps.
_QUANTIZED_LINEAR_ARGS = (
    "Tensor input, int input_zero_point, Tensor weight, Tensor? bias, Tensor kernel_sum, "
    "Tensor multipliers, Tensor shifts, int output_zero_point, int activation_min, int activation_max"
)
_lib.define(f"quantized_linear({_QUANTIZED_LINEAR_ARGS}) -> Tensor")
_lib.define(f"quantized_linear.out({_QUANTIZED_LINEAR_ARGS}, *, Tensor(a!) out) -> Tensor(a!)")


def _quantized_linear(x, x_zp, weight, bias, kernel_sum, multipliers, shifts, out_zp, act_min, act_max):
    acc = (x.to(torch.int64) - x_zp) @ weight.to(torch.int64).T
    if bias is not None:
        acc = acc + bias.to(torch.int64)
    # Per output channel: m * 2**(s - 31), one rounding; 31 - s is at most 62, so int64 holds the product.
    right = 31 - shifts.to(torch.int64)
    scaled = (acc * multipliers.to(torch.int64) + (torch.ones_like(right) << (right - 1))) >> right
    return (scaled + out_zp).clamp(act_min, act_max).to(torch.int8)


def _quantized_linear_out(x, x_zp, weight, bias, kernel_sum, multipliers, shifts, out_zp, act_min, act_max, *, out):
    result = _quantized_linear(x, x_zp, weight, bias, kernel_sum, multipliers, shifts, out_zp, act_min, act_max)
    out.resize_(result.shape)
    return out.copy_(result)


def _quantized_linear_fake(x, x_zp, weight, bias, kernel_sum, multipliers, shifts, out_zp, act_min, act_max):
    return torch.empty((*x.shape[:-1], weight.shape[0]), dtype=torch.int8, device=x.device)


_lib.impl("quantized_linear", _quantized_linear, "CompositeExplicitAutograd")
_lib.impl("quantized_linear.out", _quantized_linear_out, "CompositeExplicitAutograd")
torch.library.register_fake(f"{NAMESPACE}::quantized_linear", _quantized_linear_fake, lib=_lib)
