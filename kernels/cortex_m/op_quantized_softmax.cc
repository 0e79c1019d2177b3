// cortex_m::quantized_softmax.out(Tensor input, int input_multiplier, int input_left_shift, int diff_min,
//     *, Tensor(a!) out) -> Tensor(a!)
//
// int8 softmax over the last dim into int8 steps of 1/256 from zero point -128 (arm_softmax_s8, TFLite's
// integer softmax): per row, (x - max) * input_multiplier * 2^input_left_shift is a Q5.26 value
// (beta * input_scale * 2^26, computed ahead of time, python/etarm/cortex_m/passes/
// quantized_softmax_as_cmsis_nn.py), exp() in gemmlowp fixed point, the sum's reciprocal by Newton-Raphson,
// outputs rounded half away from zero; entries with x - max < diff_min are 0 (-128). The fixed-point
// products round half away from zero on the plain C and DSP paths and half up on MVE (its rounding
// doubling multiply): at most one step from the exact softmax on every path. python/etarm/cortex_m/ops/
// quantized_softmax.py has the arithmetic step for step.
#include "arm_nnfunctions.h"
#include "kernels/cortex_m/cortex_m_util.h"

namespace etarm {
namespace kernels {
namespace {

// The exps are summed in Q12.19 int32: each is at most 2^19.
constexpr int64_t kLongestRow = 4095;

void quantized_softmax_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  const Tensor* in = tensor_arg(stack, 0);
  const Tensor* out = tensor_arg(stack, 4);
  int64_t multiplier, left_shift, diff_min;
  ETARM_KERNEL_CHECK(
      ctx,
      stack.size() == 6 && in && out && int_arg(stack, 1, &multiplier) && int_arg(stack, 2, &left_shift) &&
          int_arg(stack, 3, &diff_min),
      "cortex_m::quantized_softmax.out: bad arguments");
  // A Q0.31 multiplier of at least 1/2 (TFLite's normalised form) and a left shift that keeps
  // diff * 2^shift in int32 for every diff >= diff_min.
  ETARM_KERNEL_CHECK(
      ctx,
      multiplier >= (int64_t{1} << 30) && multiplier <= INT32_MAX && left_shift >= 0 && left_shift <= 30 &&
          diff_min <= 0 && diff_min * (int64_t{1} << left_shift) >= INT32_MIN,
      "cortex_m::quantized_softmax.out: multiplier, shift or diff_min out of range");
  ETARM_KERNEL_CHECK(
      ctx, in->scalar_type() == ScalarType::Char && out->scalar_type() == ScalarType::Char,
      "cortex_m::quantized_softmax.out: int8 tensors only");
  ETARM_KERNEL_CHECK(
      ctx, in->dim() >= 1 && contiguous(*in) && contiguous(*out),
      "cortex_m::quantized_softmax.out: contiguous tensors of rank 1 or more only");
  const int64_t row = in->size(in->dim() - 1);
  ETARM_KERNEL_CHECK(
      ctx, row <= kLongestRow, "cortex_m::quantized_softmax.out: rows of more than %d elements",
      static_cast<int>(kLongestRow));
  ETARM_KERNEL_CHECK(
      ctx, out->dim() == in->dim() && resize_out(*out, in->sizes().data(), in->dim()),
      "cortex_m::quantized_softmax.out: bad output shape");
  ETARM_KERNEL_CHECK(ctx, has_data(*in) && has_data(*out), "cortex_m::quantized_softmax.out: tensor without data");
  if (in->numel() == 0) {
    return;
  }
  arm_softmax_s8(
      in->const_data_ptr<int8_t>(), static_cast<int32_t>(in->numel() / row), static_cast<int32_t>(row),
      static_cast<int32_t>(multiplier), static_cast<int32_t>(left_shift), static_cast<int32_t>(diff_min),
      out->mutable_data_ptr<int8_t>());
}

} // namespace
ETARM_KERNEL(cortex_m, quantized_softmax, out, quantized_softmax_out)
} // namespace kernels
} // namespace etarm
