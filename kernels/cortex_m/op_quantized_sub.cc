// cortex_m::quantized_sub.out(Tensor self, int self_zero_point, int self_multiplier, int self_shift,
//     Tensor other, int other_zero_point, int other_multiplier, int other_shift,
//     int output_zero_point, int output_multiplier, int output_shift, *, Tensor(a!) out) -> Tensor(a!)
//
// int8 out = clamp(rq(rq((self - self_zp) << 20, self_m, self_s) - rq((other - other_zp) << 20, other_m, other_s),
//                     output_m, output_s) + output_zp, -128, 127)
// with rq(x, m, s) = round_half_up(x * m * 2^(s - 31)): quantized_add's arithmetic with the difference, TOSA's SUB
// between two RESCALEs (single rounding). int16 (a16w8): zero points 0, a left shift of 15, saturation to
// [-32767, 32767]. Shapes broadcast (numpy rules). CMSIS-NN has no subtraction (its add with a negated multiplier
// would round the subtrahend's ties the other way), so this is the project's kernel, scalar C.
#include "kernels/cortex_m/cortex_m_util.h"

namespace etarm {
namespace kernels {
namespace {

using cortex_m::Requantize;

constexpr const char* kName = "cortex_m::quantized_sub.out";

int64_t rescale(int64_t x, const Requantize& r) {
  const int32_t right = 31 - r.shift;  // shift in [-31, 0]: right in [31, 62]
  return (x * r.multiplier + (int64_t{1} << (right - 1))) >> right;
}

template <typename T>
void subtract_blocks(
    const Tensor& a, const Tensor& b, const Tensor& out, const cortex_m::BroadcastBlocks& blocks,
    const Requantize (&r)[3], int32_t left_shift) {
  const T* pa = a.const_data_ptr<T>();
  const T* pb = b.const_data_ptr<T>();
  T* po = out.mutable_data_ptr<T>();
  const int64_t lowest = cortex_m::activation_min<T>();
  const int64_t highest = sizeof(T) == 1 ? INT8_MAX : INT16_MAX;
  BroadcastWalker w = blocks.walker();
  for (ssize_t i = 0; i < blocks.count; ++i, w.next()) {
    const T* x = pa + w.a();
    const T* y = pb + w.b();
    T* o = po + i * blocks.length;
    for (int32_t j = 0; j < blocks.length; ++j) {
      const int64_t u = rescale((static_cast<int64_t>(x[j]) - r[0].zero_point) * (int64_t{1} << left_shift), r[0]);
      const int64_t v = rescale((static_cast<int64_t>(y[j]) - r[1].zero_point) * (int64_t{1} << left_shift), r[1]);
      const int64_t q = rescale(u - v, r[2]) + r[2].zero_point;
      o[j] = static_cast<T>(q < lowest ? lowest : (q > highest ? highest : q));
    }
  }
}

void quantized_sub_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  cortex_m::AdditiveArgs args;
  const char* problem = cortex_m::additive_args(stack, &args);
  ETARM_KERNEL_CHECK(ctx, problem == nullptr, "%s: %s", kName, problem);
  if (args.s16) {
    subtract_blocks<int16_t>(*args.a, *args.b, *args.out, args.blocks, args.r, cortex_m::kAddLeftShiftS16);
  } else {
    subtract_blocks<int8_t>(*args.a, *args.b, *args.out, args.blocks, args.r, cortex_m::kAddLeftShift);
  }
}

} // namespace
ETARM_KERNEL(cortex_m, quantized_sub, out, quantized_sub_out)
} // namespace kernels
} // namespace etarm
