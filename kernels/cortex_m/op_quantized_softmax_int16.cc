// cortex_m::quantized_softmax_int16.out(Tensor input, Tensor exp2_table, int multiplier, int shift,
//     *, Tensor(a!) out) -> Tensor(a!)
//
// int16 softmax over the last dim (a16w8) into int16 steps of 1/32767 from 0. The project's kernel, not the
// snapshot's arm_softmax_s16, which writes 32768 (wrapping to -32768) for a dominant entry and about doubles the
// outputs of a row whose sum of exps lies just below a power of two (its reciprocal table's index wraps). Per row,
// with d = max - x:
//   t = (d * multiplier + 2^(30 - shift)) >> (31 - shift)       d * input_scale * log2(e) in Q16
//   2^-frac(t) in Q30 interpolated in exp2_table (257 entries 2^-(i/256), computed ahead of time), shifted right by
//   the integer part of t, rounded half up (0 from 31): the exps, the maximum exactly 2^30
//   out = (exp * floor(32767 * 2^47 / sum) + 2^46) >> 47      at most 32767, since exp <= sum
// int64 throughout, so no row length or sum wraps. python/etarm/cortex_m/ops/quantized_softmax_int16.py has the same
// arithmetic and the parameters' derivation.
#include "kernels/cortex_m/cortex_m_util.h"

namespace etarm {
namespace kernels {
namespace {

constexpr int kFractionBits = 16;
constexpr int kTableBits = 8;
constexpr int kLowBits = kFractionBits - kTableBits;
constexpr int64_t kTableSize = (int64_t{1} << kTableBits) + 1;
constexpr int64_t kOne = int64_t{1} << 30;  // 2^0 in the table's Q30
constexpr int64_t kOutputSteps = 32767;
constexpr int kReciprocalBits = 47;

// exp(-d * input_scale) in Q30 (module comment).
int64_t exp_of_difference(int64_t difference, int64_t multiplier, int right_shift, const int32_t* table) {
  const int64_t t = (difference * multiplier + (int64_t{1} << (right_shift - 1))) >> right_shift;
  const int64_t whole = t >> kFractionBits;
  if (whole >= 31) {
    return 0;
  }
  const int64_t fraction = t & ((int64_t{1} << kFractionBits) - 1);
  const int64_t index = fraction >> kLowBits;
  const int64_t low = fraction & ((int64_t{1} << kLowBits) - 1);
  const int64_t above = table[index];
  const int64_t value = above - (((above - table[index + 1]) * low + (int64_t{1} << (kLowBits - 1))) >> kLowBits);
  return (value + ((int64_t{1} << whole) >> 1)) >> whole;
}

void softmax_row(const int16_t* x, int64_t length, int64_t multiplier, int right_shift, const int32_t* table,
                 int16_t* y) {
  int16_t max = x[0];
  for (int64_t i = 1; i < length; ++i) {
    max = x[i] > max ? x[i] : max;
  }
  int64_t sum = 0;
  for (int64_t i = 0; i < length; ++i) {
    sum += exp_of_difference(int64_t{max} - x[i], multiplier, right_shift, table);
  }
  // sum >= 2^30 (the maximum's exp), so the reciprocal is below 2^32 and exp * reciprocal below 2^62.
  const int64_t reciprocal = static_cast<int64_t>(
      (static_cast<uint64_t>(kOutputSteps) << kReciprocalBits) / static_cast<uint64_t>(sum));
  for (int64_t i = 0; i < length; ++i) {
    const int64_t e = exp_of_difference(int64_t{max} - x[i], multiplier, right_shift, table);
    y[i] = static_cast<int16_t>((e * reciprocal + (int64_t{1} << (kReciprocalBits - 1))) >> kReciprocalBits);
  }
}

// The table the pass computes: starts at 2^0, halves over its length, never increases (so every exp <= 2^30).
bool valid_table(const int32_t* table) {
  if (table[0] != kOne || table[kTableSize - 1] != kOne / 2) {
    return false;
  }
  for (int64_t i = 1; i < kTableSize; ++i) {
    if (table[i] > table[i - 1]) {
      return false;
    }
  }
  return true;
}

void quantized_softmax_int16_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  const Tensor* in = tensor_arg(stack, 0);
  const Tensor* table = tensor_arg(stack, 1);
  const Tensor* out = tensor_arg(stack, 4);
  int64_t multiplier, shift;
  ETARM_KERNEL_CHECK(
      ctx,
      stack.size() == 6 && in && table && out && int_arg(stack, 2, &multiplier) && int_arg(stack, 3, &shift),
      "cortex_m::quantized_softmax_int16.out: bad arguments");
  // A normalised multiplier and a right shift of 1 to 62: d * multiplier (d < 2^16) fits int64 with its rounding.
  ETARM_KERNEL_CHECK(
      ctx, multiplier >= (int64_t{1} << 30) && multiplier <= INT32_MAX && shift >= -31 && shift <= 30,
      "cortex_m::quantized_softmax_int16.out: multiplier or shift out of range");
  ETARM_KERNEL_CHECK(
      ctx, in->scalar_type() == ScalarType::Short && out->scalar_type() == ScalarType::Short,
      "cortex_m::quantized_softmax_int16.out: int16 tensors only");
  ETARM_KERNEL_CHECK(
      ctx,
      table->scalar_type() == ScalarType::Int && table->dim() == 1 && table->numel() == kTableSize &&
          contiguous(*table) && has_data(*table) && valid_table(table->const_data_ptr<int32_t>()),
      "cortex_m::quantized_softmax_int16.out: exp2_table must be the 257 int32 values 2^-(i/256) in Q30");
  ETARM_KERNEL_CHECK(
      ctx, in->dim() >= 1 && contiguous(*in) && contiguous(*out),
      "cortex_m::quantized_softmax_int16.out: contiguous tensors of rank 1 or more only");
  ETARM_KERNEL_CHECK(
      ctx, out->dim() == in->dim() && resize_out(*out, in->sizes().data(), in->dim()),
      "cortex_m::quantized_softmax_int16.out: bad output shape");
  ETARM_KERNEL_CHECK(
      ctx, has_data(*in) && has_data(*out), "cortex_m::quantized_softmax_int16.out: tensor without data");
  const int64_t row = in->size(in->dim() - 1);
  if (in->numel() == 0) {
    return;
  }
  const int16_t* x = in->const_data_ptr<int16_t>();
  int16_t* y = out->mutable_data_ptr<int16_t>();
  for (int64_t start = 0; start < in->numel(); start += row) {
    softmax_row(x + start, row, multiplier, static_cast<int>(31 - shift), table->const_data_ptr<int32_t>(), y + start);
  }
}

} // namespace
ETARM_KERNEL(cortex_m, quantized_softmax_int16, out, quantized_softmax_int16_out)
} // namespace kernels
} // namespace etarm
