// cortex_m::quantized_add.out(Tensor self, int self_zero_point, int self_multiplier, int self_shift,
//     Tensor other, int other_zero_point, int other_multiplier, int other_shift,
//     int output_zero_point, int output_multiplier, int output_shift, *, Tensor(a!) out) -> Tensor(a!)
//
// int8 out = clamp(rq(rq((self - self_zp) << 20, self_m, self_s) + rq((other - other_zp) << 20, other_m, other_s),
//                     output_m, output_s) + output_zp, -128, 127)
// where rq(x, m, s) = round_half_up(x * m * 2^(s - 31)): TOSA's ADD between two RESCALEs with single
// rounding (CMSIS-NN built with CMSIS_NN_USE_SINGLE_ROUNDING). Multipliers and shifts are computed
// ahead of time (python/etarm/cortex_m/quantized_add.py); shapes broadcast (numpy rules).
// int16 (a16w8): the same with zero points 0, a left shift of 15 and saturation to [-32767, 32767]
// (arm_elementwise_add_s16).
#include <limits>

#include "arm_nnfunctions.h"
#include "kernels/cortex_m/cortex_m_util.h"

namespace etarm {
namespace kernels {
namespace {

using cortex_m::Requantize;

constexpr const char* kName = "cortex_m::quantized_add.out";

// One CMSIS-NN add per block of the broadcast output; `add` is arm_elementwise_add_s8 or _s16 (one signature).
template <typename T, typename Add>
void add_blocks(
    KernelRuntimeContext& ctx, const Tensor& a, const Tensor& b, const Tensor& out,
    const cortex_m::BroadcastBlocks& blocks, const Requantize (&r)[3], int32_t left_shift, Add add) {
  const T* pa = a.const_data_ptr<T>();
  const T* pb = b.const_data_ptr<T>();
  T* po = out.mutable_data_ptr<T>();
  BroadcastWalker w = blocks.walker();
  for (ssize_t i = 0; i < blocks.count; ++i, w.next()) {
    // CMSIS-NN takes offsets added to the values: the negated zero points of the inputs.
    const arm_cmsis_nn_status status = add(
        pa + w.a(), pb + w.b(), -r[0].zero_point, r[0].multiplier, r[0].shift, -r[1].zero_point, r[1].multiplier,
        r[1].shift, left_shift, po + i * blocks.length, r[2].zero_point, r[2].multiplier, r[2].shift,
        cortex_m::activation_min<T>(), std::numeric_limits<T>::max(), blocks.length);
    ETARM_KERNEL_CHECK(ctx, status == ARM_CMSIS_NN_SUCCESS, "%s: CMSIS-NN failed (%d)", kName, status);
  }
}

void quantized_add_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  cortex_m::AdditiveArgs args;
  const char* problem = cortex_m::additive_args(stack, &args);
  ETARM_KERNEL_CHECK(ctx, problem == nullptr, "%s: %s", kName, problem);
  if (args.s16) {
    add_blocks<int16_t>(
        ctx, *args.a, *args.b, *args.out, args.blocks, args.r, cortex_m::kAddLeftShiftS16, arm_elementwise_add_s16);
  } else {
    add_blocks<int8_t>(
        ctx, *args.a, *args.b, *args.out, args.blocks, args.r, cortex_m::kAddLeftShift, arm_elementwise_add_s8);
  }
}

} // namespace
ETARM_KERNEL(cortex_m, quantized_add, out, quantized_add_out)
} // namespace kernels
} // namespace etarm
