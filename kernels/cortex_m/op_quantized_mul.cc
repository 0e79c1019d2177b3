// cortex_m::quantized_mul.out(Tensor self, int self_zero_point, Tensor other, int other_zero_point,
//     int output_zero_point, int output_multiplier, int output_shift, *, Tensor(a!) out) -> Tensor(a!)
//
// int8 out = clamp(rq((self - self_zp) * (other - other_zp), output_m, output_s) + output_zp, -128, 127)
// where rq(x, m, s) = round_half_up(x * m * 2^(s - 31)): TOSA's int32 MUL (shift 0) of the centred
// operands and one RESCALE by self_scale * other_scale / output_scale, single rounding (CMSIS-NN built
// with CMSIS_NN_USE_SINGLE_ROUNDING). The multiplier and shift are computed ahead of time
// (python/etarm/cortex_m/passes/quantized_mul_as_cmsis_nn.py); shapes broadcast (numpy rules).
// int16 (a16w8): the same with zero points 0 and saturation to [-32767, 32767] (arm_elementwise_mul_s16).
#include <limits>

#include "arm_nnfunctions.h"
#include "kernels/cortex_m/cortex_m_util.h"

namespace etarm {
namespace kernels {
namespace {

using cortex_m::Requantize;

constexpr const char* kName = "cortex_m::quantized_mul.out";

// One CMSIS-NN mul per block of the broadcast output; `mul` is arm_elementwise_mul_s8 or _s16 (one signature).
template <typename T, typename Mul>
void mul_blocks(
    KernelRuntimeContext& ctx, const Tensor& a, const Tensor& b, const Tensor& out,
    const cortex_m::BroadcastBlocks& blocks, int32_t zp_a, int32_t zp_b, const Requantize& ro, Mul mul) {
  const T* pa = a.const_data_ptr<T>();
  const T* pb = b.const_data_ptr<T>();
  T* po = out.mutable_data_ptr<T>();
  BroadcastWalker w = blocks.walker();
  for (ssize_t i = 0; i < blocks.count; ++i, w.next()) {
    // CMSIS-NN takes offsets added to the values: the negated zero points of the inputs.
    const arm_cmsis_nn_status status = mul(
        pa + w.a(), pb + w.b(), -zp_a, -zp_b, po + i * blocks.length, ro.zero_point, ro.multiplier, ro.shift,
        cortex_m::activation_min<T>(), std::numeric_limits<T>::max(), blocks.length);
    ETARM_KERNEL_CHECK(ctx, status == ARM_CMSIS_NN_SUCCESS, "%s: CMSIS-NN failed (%d)", kName, status);
  }
}

void quantized_mul_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  const Tensor* a = tensor_arg(stack, 0);
  const Tensor* b = tensor_arg(stack, 2);
  const Tensor* out = tensor_arg(stack, 7);
  int32_t zp_a, zp_b;
  Requantize ro;
  ETARM_KERNEL_CHECK(
      ctx, stack.size() == 9 && a && b && out && cortex_m::requantize_args(stack, 4, &ro), "%s: bad arguments", kName);
  const bool s16 = a->scalar_type() == ScalarType::Short;
  ETARM_KERNEL_CHECK(
      ctx,
      cortex_m::int8_zero_point_arg(stack, 1, &zp_a) && cortex_m::int8_zero_point_arg(stack, 3, &zp_b) &&
          (s16 ? zp_a == 0 && zp_b == 0 && cortex_m::valid_int16(ro) : cortex_m::valid_int8(ro)),
      "%s: zero point, multiplier or shift out of range", kName);
  cortex_m::BroadcastBlocks blocks;
  const char* problem =
      cortex_m::broadcast_blocks(*a, *b, *out, s16 ? ScalarType::Short : ScalarType::Char, &blocks);
  ETARM_KERNEL_CHECK(ctx, problem == nullptr, "%s: %s", kName, problem);
  if (s16) {
    mul_blocks<int16_t>(ctx, *a, *b, *out, blocks, zp_a, zp_b, ro, arm_elementwise_mul_s16);
  } else {
    mul_blocks<int8_t>(ctx, *a, *b, *out, blocks, zp_a, zp_b, ro, arm_elementwise_mul_s8);
  }
}

} // namespace
ETARM_KERNEL(cortex_m, quantized_mul, out, quantized_mul_out)
} // namespace kernels
} // namespace etarm
