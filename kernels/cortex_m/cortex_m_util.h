// Argument helpers shared by the CMSIS-NN backed kernels (kernels/cortex_m, one op per file).
// Quantized operands arrive as (zero point, multiplier, shift) triples computed ahead of time
// (python/etarm/cortex_m); the ranges below are where CMSIS-NN's scalar, DSP and MVE code paths
// compute the same single-rounded result, so a kernel refuses anything outside them.
#pragma once

#include <cstdint>

#include "kernels/portable/kernel_util.h"

namespace etarm {
namespace kernels {
namespace cortex_m {

// Operands of an int8 add are shifted left by this before their rescale (as TOSA lowerings
// and TFLite do): |q - zp| < 2^9, so two of them times 2^20 still fit int32.
constexpr int32_t kAddLeftShift = 20;

// x -> round_half_up(x * multiplier * 2^(shift - 31)), then + zero_point (outputs).
struct Requantize {
  int32_t zero_point;
  int32_t multiplier;
  int32_t shift;
};

// Three consecutive int arguments from `first` (zero point, multiplier, shift); false if any
// is missing, not an Int or beyond int32.
bool requantize_args(Span<EValue*> stack, size_t first, Requantize* r);

// For an int8 operand or output: zero point in [-128, 127]; a positive multiplier; shift in
// [-31, 0] (a scale below 1: the MVE path doubles the value before its high multiply).
bool valid_int8(const Requantize& r);

} // namespace cortex_m
} // namespace kernels
} // namespace etarm
