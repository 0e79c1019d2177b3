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
// The same for int16 (a16w8): |q| <= 2^15, so two of them times 2^15 still fit int32.
constexpr int32_t kAddLeftShiftS16 = 15;

// The smallest value a kernel writes to an activation of type T: int8's -128; for int16 (a16w8) -32767, the
// quantizer's symmetric range, so -32768 never appears (its square, 2^30, overflows MVE's s16 multiply).
template <typename T>
constexpr int32_t activation_min() {
  return sizeof(T) == 1 ? INT8_MIN : -INT16_MAX;
}

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

// The same for an int16 operand or output (a16w8): zero point 0 (CMSIS-NN's s16 kernels take no offsets).
bool valid_int16(const Requantize& r);

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

// Checks that a, b and out are contiguous tensors of `type` with data, that a and b broadcast to out's
// rank, resizes out to their broadcast shape and cuts it into blocks; nullptr, or what is wrong.
const char* broadcast_blocks(
    const Tensor& a, const Tensor& b, const Tensor& out, ScalarType type, BroadcastBlocks* blocks);

// The arguments of quantized_add.out and quantized_sub.out:
//   (Tensor self, int self_zero_point, int self_multiplier, int self_shift,
//    Tensor other, int other_zero_point, int other_multiplier, int other_shift,
//    int output_zero_point, int output_multiplier, int output_shift, *, Tensor(a!) out)
// int8 operands, or int16 ones (s16) with zero points 0; the output resized to the broadcast shape.
struct AdditiveArgs {
  const Tensor* a;
  const Tensor* b;
  const Tensor* out;
  Requantize r[3];  // self, other, output
  bool s16;
  BroadcastBlocks blocks;
};

// Reads and checks them: nullptr, or what is wrong.
const char* additive_args(Span<EValue*> stack, AdditiveArgs* args);

inline const char* int8_broadcast_blocks(const Tensor& a, const Tensor& b, const Tensor& out, BroadcastBlocks* blocks) {
  return broadcast_blocks(a, b, out, ScalarType::Char, blocks);
}

// The kernels of cortex_m::quantized_minimum.out / quantized_maximum.out (`largest`), written here
// since the CMSIS-NN snapshot has no arm_minimum_s8 / arm_maximum_s8; `op` names the kernel in errors.
//   (Tensor self, int self_zero_point, int self_multiplier, int self_shift,
//    Tensor other, int other_zero_point, int other_multiplier, int other_shift, int output_zero_point, *, out)
// int8 out = clamp(pick(rq(self - self_zp, self_m, self_s), rq(other - other_zp, other_m, other_s)) + output_zp,
//                  -128, 127)
// with rq(x, m, s) = round_half_up(x * m * 2^(s - 31)), shift in [-31, 29] (each operand's scale over the
// output's, also 1 or more): TOSA's RESCALE of each operand into the output, MINIMUM/MAXIMUM, one rounding
// per operand (rounding is monotonic, so the extremum of the rounded values is the rounded extremum). When
// both operands are already in output steps (multiplier 2^30, shift 1, the output's zero point: a scale of
// exactly 1) the int8 values are compared as they are (16 at a time with MVE, scalar C elsewhere).
// int16 (a16w8): the same with every zero point 0 and saturation to [-32767, 32767].
void quantized_extremum_out(KernelRuntimeContext& ctx, Span<EValue*> stack, bool largest, const char* op);

} // namespace cortex_m
} // namespace kernels
} // namespace etarm
