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

// An int argument in [-128, 127] (an int8 zero point); false otherwise.
bool int8_zero_point_arg(Span<EValue*> stack, size_t i, int32_t* zero_point);

// For an int8 operand or output: zero point in [-128, 127]; a positive multiplier; shift in
// [-31, 0] (a scale below 1: the MVE path doubles the value before its high multiply).
bool valid_int8(const Requantize& r);

// Two int8 operands broadcast (numpy rules) into an int8 output, cut into `count` contiguous
// blocks of `length` elements: the trailing dims that both operands have at the output's size
// make one block (one elementwise loop or CMSIS-NN call), the leading dims are walked.
struct BroadcastBlocks {
  int32_t sizes[kMaxDim];
  size_t outer_dim;
  int32_t a_strides[kMaxDim];
  int32_t b_strides[kMaxDim];
  int32_t length;
  ssize_t count;

  // Element offsets of the operands' blocks, in output block order.
  BroadcastWalker walker() const {
    return BroadcastWalker(sizes, outer_dim, a_strides, b_strides);
  }
};

// Checks that a, b and out are contiguous int8 tensors with data, that a and b broadcast to out's
// rank, resizes out to their broadcast shape and cuts it into blocks; nullptr, or what is wrong.
const char* int8_broadcast_blocks(const Tensor& a, const Tensor& b, const Tensor& out, BroadcastBlocks* blocks);

} // namespace cortex_m
} // namespace kernels
} // namespace etarm
