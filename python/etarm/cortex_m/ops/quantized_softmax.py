"""cortex_m::quantized_softmax: int8 softmax over the last dim (arm_softmax_s8) -> int8 at the fixed output
scale 1/256, zero point -128 (what CMSIS-NN writes, and what etarm's quantizer gives a softmax's output).

CMSIS-NN's s8 softmax is TFLite's integer softmax: per row, diff = x - max(row) is scaled by
``input_multiplier * 2**input_left_shift`` into a Q5.26 value (beta * input_scale * 2**26, computed ahead of
time), exp() is evaluated in fixed point (gemmlowp's exp_on_negative_values: Q0.31), the exps, in Q12.19, are
summed, 1/sum comes from three Newton-Raphson steps, and each exp times 1/sum is rounded (half away from zero)
to 1/256 steps. Entries with diff < diff_min (whose exp underflows) give 0 (-128). The eager implementation
below is that arithmetic step for step on int64 tensors holding int32 values, the plain-C path of the kernel.
"""

from __future__ import annotations

import torch

from etarm.cortex_m.ops.library import define

ARGUMENTS = "Tensor input, int input_multiplier, int input_left_shift, int diff_min"
OUTPUT_SCALE, OUTPUT_ZERO_POINT = 1.0 / 256, -128
# The exps are summed in Q12.19: each is at most 2**19, so rows up to this length cannot overflow int32.
LONGEST_ROW = 4095
# Q5.26: the scaled differences' integer bits (TFLite's kScaledDiffIntegerBits).
DIFF_INTEGER_BITS = 5
_ACCUMULATOR_BITS = 12
_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1


def _wrap(x: torch.Tensor) -> torch.Tensor:
    """int32 two's complement wrap-around of int64 values."""
    return torch.remainder(x + 2**31, 2**32) - 2**31


def _high_mul(a, b) -> torch.Tensor:
    """a * b / 2**31 rounded half away from zero, saturating -1 * -1 (CMSIS-NN's doubling high multiply)."""
    a, b = torch.as_tensor(a, dtype=torch.int64), torch.as_tensor(b, dtype=torch.int64)
    nudge = torch.where((a < 0) ^ (b < 0), 1 - 2**30, 2**30)
    result = torch.div(a * b + nudge, 2**31, rounding_mode="trunc")
    return torch.where((a == _INT32_MIN) & (b == _INT32_MIN), _INT32_MAX, result)


def _div_pow2(x: torch.Tensor, exponent) -> torch.Tensor:
    """x / 2**exponent rounded half away from zero."""
    exponent = torch.as_tensor(exponent, dtype=torch.int64)
    mask = (torch.ones_like(exponent) << exponent) - 1
    result = x >> exponent
    threshold = (mask >> 1) + (result < 0).to(torch.int64)
    return result + ((x & mask) > threshold).to(torch.int64)


def _mul_pow2(x: torch.Tensor, exponent: int) -> torch.Tensor:
    """x * 2**exponent saturated to int32."""
    threshold = (1 << (31 - exponent)) - 1
    result = _wrap(x << exponent)
    result = torch.where(x > threshold, _INT32_MAX, result)
    return torch.where(x < -threshold, _INT32_MIN, result)


# exp(-2**k / 4) in Q0.31 for the bits k = 0..6 of a Q5.26 value beyond its fraction below 1/4.
_EXP_OF_BITS = (1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242)


def _exp_on_negative_values(value: torch.Tensor) -> torch.Tensor:
    """exp(value) for Q5.26 values <= 0, in Q0.31: a Taylor polynomial on [-1/4, 0), times the exps of the bits."""
    in_quarter = (value & (2**24 - 1)) - 2**24
    remainder = in_quarter - value
    x = (in_quarter << 5) + 2**28
    x2 = _high_mul(x, x)
    x3_x4 = _wrap(_div_pow2(_high_mul(x2, x2), 2) + _high_mul(x2, x))
    polynomial = _wrap(x + _div_pow2(_wrap(_high_mul(x3_x4, 715827883) + x2), 1))
    result = _wrap(1895147668 + _high_mul(1895147668, polynomial))
    for bit, factor in enumerate(_EXP_OF_BITS, start=24):
        result = torch.where((remainder & (1 << bit)) != 0, _high_mul(result, factor), result)
    return torch.where(value == 0, _INT32_MAX, result)


def _one_over_one_plus_x(value: torch.Tensor) -> torch.Tensor:
    """1 / (1 + x) for x in [0, 1) in Q0.31, as Q2.29 (three Newton-Raphson steps from 48/17 - 32/17 d)."""
    total = value + _INT32_MAX
    half_denominator = torch.div(total + torch.where(total >= 0, 1, -1), 2, rounding_mode="trunc")
    x = _wrap(1515870810 + _high_mul(half_denominator, -1010580540))
    for _ in range(3):
        x = _wrap(x + _mul_pow2(_high_mul(x, _wrap(2**29 - _high_mul(half_denominator, x))), 2))
    return _mul_pow2(x, 1)


def _bit_length(x: torch.Tensor) -> torch.Tensor:
    return sum(((x >> k) > 0).to(torch.int64) for k in range(32))


def quantized_softmax(x, multiplier, left_shift, diff_min):
    values = x.to(torch.int64)
    diff = values - values.amax(dim=-1, keepdim=True)
    kept = diff >= diff_min
    exps = _exp_on_negative_values(_high_mul(torch.where(kept, diff, 0) << left_shift, multiplier))
    total = torch.where(kept, _div_pow2(exps, _ACCUMULATOR_BITS), 0).sum(dim=-1, keepdim=True)
    headroom = 32 - _bit_length(total)  # the row's maximum contributes 2**19: the sum is positive
    reciprocal = _one_over_one_plus_x((total << headroom) - 2**31)
    bits_over_unit = _ACCUMULATOR_BITS - headroom + 23
    result = _div_pow2(_high_mul(reciprocal, exps), bits_over_unit) + OUTPUT_ZERO_POINT
    return torch.where(kept, result.clamp(-128, 127), OUTPUT_ZERO_POINT).to(torch.int8)


def _fake(x, multiplier, left_shift, diff_min):
    return torch.empty_like(x, dtype=torch.int8)


define("quantized_softmax", ARGUMENTS, quantized_softmax, _fake)
