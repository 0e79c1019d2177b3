// cortex_m::quantized_depthwise_conv2d.out(Tensor input, int input_zero_point, Tensor weight, Tensor bias,
//     Tensor multipliers, Tensor shifts, int[] stride, int[] padding, int[] dilation, int depth_multiplier,
//     int output_zero_point, int activation_min, int activation_max, int scratch_bytes, *, Tensor(a!) out)
//     -> Tensor(a!)
//
// int8 NHWC input [N, H, W, C_in], symmetric int8 weights [1, KH, KW, C_out] with C_out = C_in * depth_multiplier,
// output channel o reading input channel o / depth_multiplier only, the rest as cortex_m::quantized_conv2d:
//   acc[n, y, x, o] = bias[o] + sum_{i, j} (input[n, y * sh - ph + i * dh, x * sw - pw + j * dw, o / mult]
//                                           - input_zero_point) * weight[0, i, j, o]
//   out[n, y, x, o] = clamp(rq(acc, multipliers[o], shifts[o]) + output_zero_point, activation_min, activation_max)
// TOSA's DEPTHWISE_CONV2D, RESCALE (single rounding), CLAMP, in NHWC. arm_depthwise_conv_wrapper_s8, its scratch
// buffer (at least scratch_bytes, CMSIS-NN's size on the program's code path) from the method's temporary allocator.
// int16 input and output (a16w8): zero points 0, an int64 bias, arm_depthwise_conv_wrapper_s16, whose rq uses the
// multiplier's top 15 bits (python/etarm/cortex_m/ops/library.py rescale_s16).
// python/etarm/cortex_m/passes/quantized_depthwise_conv2d_as_cmsis_nn.py.
//
// cortex_m::quantized_depthwise_conv2d_s4.out(<the same up to activation_max>, int[] weight_shape, int scratch_bytes,
//     *, Tensor(a!) out) -> Tensor(a!)
// int4 weights (a8w4): `weight` is int8 [ceil(KH * KW * C_out / 2)], the [1, KH, KW, C_out] values of weight_shape
// packed two per byte, low nibble first (python/etarm/cortex_m/int4.py); int8 activations;
// arm_depthwise_conv_wrapper_s4 (the optimized kernel for multiplier 1, one image and no dilation, with its im2col
// scratch on every path; the general one otherwise), the same arithmetic.
#include "arm_nnfunctions.h"
#include "kernels/cortex_m/window_args.h"

namespace etarm {
namespace kernels {
namespace {

using cortex_m::Conv2dArgs;

constexpr const char* kName = "cortex_m::quantized_depthwise_conv2d.out";
constexpr const char* kNameS4 = "cortex_m::quantized_depthwise_conv2d_s4.out";

void convolve_depthwise(KernelRuntimeContext& ctx, Span<EValue*> stack, bool packed_int4) {
  const char* name = packed_int4 ? kNameS4 : kName;
  Conv2dArgs a;
  const char* wrong = cortex_m::conv2d_args(stack, 10, cortex_m::OutChannelsAt::kLast, &a, true, packed_int4);
  ETARM_KERNEL_CHECK(ctx, wrong == nullptr, "%s: %s", name, wrong);
  int64_t multiplier;
  ETARM_KERNEL_CHECK(
      ctx, int_arg(stack, 9, &multiplier) && multiplier >= 1 && a.weight_d0 == 1 && a.in_c * multiplier == a.out_c,
      "%s: weight [1, KH, KW, C_in * depth_multiplier] and depth_multiplier >= 1 do not match the input", name);
  // The snapshot's general s4 kernel (arm_depthwise_conv_s4: a multiplier above 1, batches or dilation) reads the
  // wrong nibbles for an odd channel count (its row stride is (C_in / 2) * multiplier bytes, and it tracks the nibble
  // per visited tap, so taps skipped at the border shift it): measured wrong, so refused. The optimized kernel
  // (multiplier 1, one image, no dilation) is exact for every channel count.
  ETARM_KERNEL_CHECK(
      ctx,
      !a.s4 || a.in_c % 2 == 0 || (multiplier == 1 && a.n == 1 && a.dilation_h == 1 && a.dilation_w == 1),
      "%s: int4 weights over an odd channel count (%d) need multiplier 1, one image and no dilation", name,
      static_cast<int>(a.in_c));

  const cmsis_nn_dw_conv_params params = {
      -a.input_zero_point,        a.output_zero_point,          static_cast<int32_t>(multiplier),
      {a.stride_w, a.stride_h},   {a.padding_w, a.padding_h},   {a.dilation_w, a.dilation_h},
      {a.activation_min, a.activation_max}};
  const cmsis_nn_per_channel_quant_params quant = {
      const_cast<int32_t*>(a.multipliers->const_data_ptr<int32_t>()),
      const_cast<int32_t*>(a.shifts->const_data_ptr<int32_t>())};
  const cmsis_nn_dims input_dims = {a.n, a.in_h, a.in_w, a.in_c};
  const cmsis_nn_dims filter_dims = {1, a.kernel_h, a.kernel_w, a.out_c};
  const cmsis_nn_dims bias_dims = {1, 1, 1, a.out_c};
  const cmsis_nn_dims output_dims = {a.n, a.out_h, a.out_w, a.out_c};
  const int32_t bytes = a.s4
      ? arm_depthwise_conv_wrapper_s4_get_buffer_size(&params, &input_dims, &filter_dims, &output_dims)
      : a.s16 ? arm_depthwise_conv_wrapper_s16_get_buffer_size(&params, &input_dims, &filter_dims, &output_dims)
              : arm_depthwise_conv_wrapper_s8_get_buffer_size(&params, &input_dims, &filter_dims, &output_dims);
  cmsis_nn_context context = {nullptr, 0};
  if (!cortex_m::recorded_scratch(ctx, name, a.scratch_bytes, bytes, &context.buf, &context.size)) {
    return;
  }
  const int8_t* weight = a.weight->const_data_ptr<int8_t>();
  arm_cmsis_nn_status status;
  if (a.s4) {
    status = arm_depthwise_conv_wrapper_s4(
        &context, &params, &quant, &input_dims, a.input->const_data_ptr<int8_t>(), &filter_dims, weight, &bias_dims,
        a.bias->const_data_ptr<int32_t>(), &output_dims, a.out->mutable_data_ptr<int8_t>());
  } else if (a.s16) {
    status = arm_depthwise_conv_wrapper_s16(
        &context, &params, &quant, &input_dims, a.input->const_data_ptr<int16_t>(), &filter_dims, weight, &bias_dims,
        a.bias->const_data_ptr<int64_t>(), &output_dims, a.out->mutable_data_ptr<int16_t>());
  } else {
    status = arm_depthwise_conv_wrapper_s8(
        &context, &params, &quant, &input_dims, a.input->const_data_ptr<int8_t>(), &filter_dims, weight, &bias_dims,
        a.bias->const_data_ptr<int32_t>(), &output_dims, a.out->mutable_data_ptr<int8_t>());
  }
  ETARM_KERNEL_CHECK(ctx, status == ARM_CMSIS_NN_SUCCESS, "%s: CMSIS-NN failed (%d)", name, status);
}

void quantized_depthwise_conv2d_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  convolve_depthwise(ctx, stack, false);
}

void quantized_depthwise_conv2d_s4_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  convolve_depthwise(ctx, stack, true);
}

} // namespace
ETARM_KERNEL(cortex_m, quantized_depthwise_conv2d, out, quantized_depthwise_conv2d_out)
ETARM_KERNEL(cortex_m, quantized_depthwise_conv2d_s4, out, quantized_depthwise_conv2d_s4_out)
} // namespace kernels
} // namespace etarm
