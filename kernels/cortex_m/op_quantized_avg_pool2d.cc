// cortex_m::quantized_avg_pool2d.out(Tensor input, int[] kernel_size, int[] stride, int[] padding,
//     int activation_min, int activation_max, int scratch_bytes, *, Tensor(a!) out) -> Tensor(a!)
//
// int8 NHWC input [N, H, W, C] -> int8 NHWC [N, OH, OW, C], OH = (H + 2 * ph - kh) / sh + 1 (likewise OW):
//   sum = the window's taps inside the input (padding not counted), count = their number
//   out[n, y, x, c] = clamp((sum > 0 ? sum + count / 2 : sum - count / 2) / count, activation_min, activation_max)
// (C division: half away from zero). Input and output share their quantization (no rescale). arm_avgpool_s8, its
// scratch buffer (DSP builds: one int32 per channel; at least scratch_bytes, recorded for the program's code path)
// from the method's temporary allocator. int16 -> int16 (a16w8):
// the same with arm_avgpool_s16.
// python/etarm/cortex_m/passes/quantized_avg_pool2d_as_cmsis_nn.py.
#include "arm_nnfunctions.h"
#include "kernels/cortex_m/window_args.h"

namespace etarm {
namespace kernels {
namespace {

using cortex_m::Pool2dArgs;

constexpr const char* kName = "cortex_m::quantized_avg_pool2d.out";

void quantized_avg_pool2d_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  Pool2dArgs a;
  const char* wrong = cortex_m::pool2d_args(stack, &a, true);
  ETARM_KERNEL_CHECK(ctx, wrong == nullptr, "%s: %s", kName, wrong);
  const cmsis_nn_pool_params params = {
      {a.stride_w, a.stride_h}, {a.padding_w, a.padding_h}, {a.activation_min, a.activation_max}};
  const cmsis_nn_dims input_dims = {a.n, a.in_h, a.in_w, a.c};
  const cmsis_nn_dims filter_dims = {1, a.kernel_h, a.kernel_w, 1};
  const cmsis_nn_dims output_dims = {a.n, a.out_h, a.out_w, a.c};
  const int32_t bytes =
      a.s16 ? arm_avgpool_s16_get_buffer_size(a.out_w, a.c) : arm_avgpool_s8_get_buffer_size(a.out_w, a.c);
  cmsis_nn_context context = {nullptr, 0};
  if (!cortex_m::recorded_scratch(ctx, kName, a.scratch_bytes, bytes, &context.buf, &context.size)) {
    return;
  }
  const arm_cmsis_nn_status status = a.s16
      ? arm_avgpool_s16(
            &context, &params, &input_dims, a.input->const_data_ptr<int16_t>(), &filter_dims, &output_dims,
            a.out->mutable_data_ptr<int16_t>())
      : arm_avgpool_s8(
            &context, &params, &input_dims, a.input->const_data_ptr<int8_t>(), &filter_dims, &output_dims,
            a.out->mutable_data_ptr<int8_t>());
  ETARM_KERNEL_CHECK(ctx, status == ARM_CMSIS_NN_SUCCESS, "%s: CMSIS-NN failed (%d)", kName, status);
}

} // namespace
ETARM_KERNEL(cortex_m, quantized_avg_pool2d, out, quantized_avg_pool2d_out)
} // namespace kernels
} // namespace etarm
