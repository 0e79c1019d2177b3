// cortex_m::quantized_mul.out(Tensor self, int self_zero_point, Tensor other, int other_zero_point,
//     int output_zero_point, int output_multiplier, int output_shift, *, Tensor(a!) out) -> Tensor(a!)
//
// int8 out = clamp(rq((self - self_zp) * (other - other_zp), output_m, output_s) + output_zp, -128, 127)
// where rq(x, m, s) = round_half_up(x * m * 2^(s - 31)): TOSA's int32 MUL (shift 0) of the centred
// operands and one RESCALE by self_scale * other_scale / output_scale, single rounding (CMSIS-NN built
// with CMSIS_NN_USE_SINGLE_ROUNDING). The multiplier and shift are computed ahead of time
// (python/etarm/cortex_m/passes/quantized_mul_as_cmsis_nn.py); shapes broadcast (numpy rules).
#include "arm_nnfunctions.h"
#include "kernels/cortex_m/cortex_m_util.h"

namespace etarm {
namespace kernels {
namespace {

using cortex_m::Requantize;

void quantized_mul_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  const Tensor* a = tensor_arg(stack, 0);
  const Tensor* b = tensor_arg(stack, 2);
  const Tensor* out = tensor_arg(stack, 7);
  int32_t zp_a, zp_b;
  Requantize ro;
  ETARM_KERNEL_CHECK(
      ctx, stack.size() == 9 && a && b && out && cortex_m::requantize_args(stack, 4, &ro),
      "cortex_m::quantized_mul.out: bad arguments");
  ETARM_KERNEL_CHECK(
      ctx, cortex_m::int8_zero_point_arg(stack, 1, &zp_a) && cortex_m::int8_zero_point_arg(stack, 3, &zp_b) &&
          cortex_m::valid_int8(ro),
      "cortex_m::quantized_mul.out: zero point, multiplier or shift out of range");
  cortex_m::BroadcastBlocks blocks;
  const char* problem = cortex_m::int8_broadcast_blocks(*a, *b, *out, &blocks);
  ETARM_KERNEL_CHECK(ctx, problem == nullptr, "cortex_m::quantized_mul.out: %s", problem);
  const int8_t* pa = a->const_data_ptr<int8_t>();
  const int8_t* pb = b->const_data_ptr<int8_t>();
  int8_t* po = out->mutable_data_ptr<int8_t>();
  BroadcastWalker w = blocks.walker();
  for (ssize_t i = 0; i < blocks.count; ++i, w.next()) {
    // CMSIS-NN takes offsets added to the values: the negated zero points of the inputs.
    const arm_cmsis_nn_status status = arm_elementwise_mul_s8(
        pa + w.a(), pb + w.b(), -zp_a, -zp_b, po + i * blocks.length, ro.zero_point, ro.multiplier, ro.shift, INT8_MIN,
        INT8_MAX, blocks.length);
    ETARM_KERNEL_CHECK(ctx, status == ARM_CMSIS_NN_SUCCESS, "cortex_m::quantized_mul.out: CMSIS-NN failed (%d)", status);
  }
}

} // namespace
ETARM_REGISTER_KERNEL("cortex_m::quantized_mul.out", quantized_mul_out)
} // namespace kernels
} // namespace etarm
