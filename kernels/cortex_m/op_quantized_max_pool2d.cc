// cortex_m::quantized_max_pool2d.out(Tensor input, int[] kernel_size, int[] stride, int[] padding,
//     int activation_min, int activation_max, *, Tensor(a!) out) -> Tensor(a!)
//
// int8 NHWC input [N, H, W, C] -> int8 NHWC [N, OH, OW, C], OH = (H + 2 * ph - kh) / sh + 1 (likewise OW):
//   out[n, y, x, c] = clamp(max over the window's taps inside the input of input[n, ., ., c], activation_min,
//                           activation_max)
// Input and output share their quantization (no rescale); padded taps are skipped (torch's -inf padding); every
// window must hold at least one tap. arm_max_pool_s8; int16 -> int16 (a16w8) arm_max_pool_s16.
// python/etarm/cortex_m/passes/quantized_max_pool2d_as_cmsis_nn.py.
#include "arm_nnfunctions.h"
#include "kernels/cortex_m/window_args.h"

namespace etarm {
namespace kernels {
namespace {

using cortex_m::Pool2dArgs;

constexpr const char* kName = "cortex_m::quantized_max_pool2d.out";

void quantized_max_pool2d_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  Pool2dArgs a;
  const char* wrong = cortex_m::pool2d_args(stack, &a);
  ETARM_KERNEL_CHECK(ctx, wrong == nullptr, "%s: %s", kName, wrong);
  const cmsis_nn_pool_params params = {
      {a.stride_w, a.stride_h}, {a.padding_w, a.padding_h}, {a.activation_min, a.activation_max}};
  const cmsis_nn_dims input_dims = {a.n, a.in_h, a.in_w, a.c};
  const cmsis_nn_dims filter_dims = {1, a.kernel_h, a.kernel_w, 1};
  const cmsis_nn_dims output_dims = {a.n, a.out_h, a.out_w, a.c};
  const cmsis_nn_context context = {nullptr, 0};  // arm_max_pool_s8 / _s16 need no buffer
  const arm_cmsis_nn_status status = a.s16
      ? arm_max_pool_s16(
            &context, &params, &input_dims, a.input->const_data_ptr<int16_t>(), &filter_dims, &output_dims,
            a.out->mutable_data_ptr<int16_t>())
      : arm_max_pool_s8(
            &context, &params, &input_dims, a.input->const_data_ptr<int8_t>(), &filter_dims, &output_dims,
            a.out->mutable_data_ptr<int8_t>());
  ETARM_KERNEL_CHECK(ctx, status == ARM_CMSIS_NN_SUCCESS, "%s: CMSIS-NN failed (%d)", kName, status);
}

} // namespace
ETARM_KERNEL(cortex_m, quantized_max_pool2d, out, quantized_max_pool2d_out)
} // namespace kernels
} // namespace etarm
