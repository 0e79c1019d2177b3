// cortex_m::quantized_add.out(Tensor self, int self_zero_point, int self_multiplier, int self_shift,
//     Tensor other, int other_zero_point, int other_multiplier, int other_shift,
//     int output_zero_point, int output_multiplier, int output_shift, *, Tensor(a!) out) -> Tensor(a!)
//
// int8 out = clamp(rq(rq((self - self_zp) << 20, self_m, self_s) + rq((other - other_zp) << 20, other_m, other_s),
//                     output_m, output_s) + output_zp, -128, 127)
// where rq(x, m, s) = round_half_up(x * m * 2^(s - 31)): TOSA's ADD between two RESCALEs with single
// rounding (CMSIS-NN built with CMSIS_NN_USE_SINGLE_ROUNDING). Multipliers and shifts are computed
// ahead of time (python/etarm/cortex_m/quantized_add.py); shapes broadcast (numpy rules).
#include "arm_nnfunctions.h"
#include "kernels/cortex_m/cortex_m_util.h"

namespace etarm {
namespace kernels {
namespace {

using cortex_m::Requantize;

void quantized_add_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  const Tensor* a = tensor_arg(stack, 0);
  const Tensor* b = tensor_arg(stack, 4);
  const Tensor* out = tensor_arg(stack, 11);
  Requantize ra, rb, ro;
  ETARM_KERNEL_CHECK(
      ctx,
      stack.size() == 13 && a && b && out && cortex_m::requantize_args(stack, 1, &ra) &&
          cortex_m::requantize_args(stack, 5, &rb) && cortex_m::requantize_args(stack, 8, &ro),
      "cortex_m::quantized_add.out: bad arguments");
  ETARM_KERNEL_CHECK(
      ctx, cortex_m::valid_int8(ra) && cortex_m::valid_int8(rb) && cortex_m::valid_int8(ro),
      "cortex_m::quantized_add.out: zero point, multiplier or shift out of range");
  cortex_m::BroadcastBlocks blocks;
  const char* problem = cortex_m::int8_broadcast_blocks(*a, *b, *out, &blocks);
  ETARM_KERNEL_CHECK(ctx, problem == nullptr, "cortex_m::quantized_add.out: %s", problem);
  const int8_t* pa = a->const_data_ptr<int8_t>();
  const int8_t* pb = b->const_data_ptr<int8_t>();
  int8_t* po = out->mutable_data_ptr<int8_t>();
  BroadcastWalker w = blocks.walker();
  for (ssize_t i = 0; i < blocks.count; ++i, w.next()) {
    // CMSIS-NN takes offsets added to the values: the negated zero points of the inputs.
    const arm_cmsis_nn_status status = arm_elementwise_add_s8(
        pa + w.a(), pb + w.b(), -ra.zero_point, ra.multiplier, ra.shift, -rb.zero_point, rb.multiplier, rb.shift,
        cortex_m::kAddLeftShift, po + i * blocks.length, ro.zero_point, ro.multiplier, ro.shift, INT8_MIN, INT8_MAX,
        blocks.length);
    ETARM_KERNEL_CHECK(ctx, status == ARM_CMSIS_NN_SUCCESS, "cortex_m::quantized_add.out: CMSIS-NN failed (%d)", status);
  }
}

} // namespace
ETARM_REGISTER_KERNEL("cortex_m::quantized_add.out", quantized_add_out)
} // namespace kernels
} // namespace etarm
