// cortex_m::quantized_conv2d.out(Tensor input, int input_zero_point, Tensor weight, Tensor bias, Tensor multipliers,
//     Tensor shifts, int[] stride, int[] padding, int[] dilation, int output_zero_point, int activation_min,
//     int activation_max, int scratch_bytes, *, Tensor(a!) out) -> Tensor(a!)
//
// int8 NHWC input [N, H, W, C_in], symmetric int8 weights OHWI [C_out, KH, KW, C_in], int32 bias [C_out] (at scale
// input_scale * weight_scale[o]), int32 multipliers/shifts [C_out], windows as [h, w]:
//   acc[n, y, x, o] = bias[o] + sum_{i, j, c} (input[n, y * sh - ph + i * dh, x * sw - pw + j * dw, c] - input_zero_point)
//                                               * weight[o, i, j, c]        (taps outside the input are skipped)
//   out[n, y, x, o] = clamp(rq(acc, multipliers[o], shifts[o]) + output_zero_point, activation_min, activation_max)
// with rq(x, m, s) = round_half_up(x * m * 2^(s - 31)): TOSA's CONV2D, RESCALE (single rounding), CLAMP, in NHWC.
// arm_convolve_wrapper_s8, its scratch buffer (at least scratch_bytes, CMSIS-NN's size on the program's code path:
// python/etarm/cortex_m/passes/record_scratch_sizes.py) from the method's temporary allocator.
// int16 input and output (a16w8): zero points 0, an int64 bias, arm_convolve_wrapper_s16, whose rq uses the
// multiplier's top 15 bits (python/etarm/cortex_m/ops/library.py rescale_s16).
// python/etarm/cortex_m/passes/quantized_conv2d_as_cmsis_nn.py.
//
// cortex_m::quantized_conv2d_s4.out(<the same up to activation_max>, int[] weight_shape, int scratch_bytes, *,
//     Tensor(a!) out) -> Tensor(a!)
// int4 weights (a8w4): `weight` is int8 [ceil(C_out * KH * KW * C_in / 2)], the OHWI values of weight_shape packed two
// per byte, low nibble first (python/etarm/cortex_m/int4.py); int8 activations; arm_convolve_wrapper_s4 (1x1 fast,
// 1x1 strided or the general kernel with its im2col scratch), the same arithmetic.
#include "arm_nnfunctions.h"
#include "kernels/cortex_m/window_args.h"

namespace etarm {
namespace kernels {
namespace {

using cortex_m::Conv2dArgs;

constexpr const char* kName = "cortex_m::quantized_conv2d.out";
constexpr const char* kNameS4 = "cortex_m::quantized_conv2d_s4.out";

void convolve(KernelRuntimeContext& ctx, Span<EValue*> stack, bool packed_int4) {
  const char* name = packed_int4 ? kNameS4 : kName;
  Conv2dArgs a;
  const char* wrong = cortex_m::conv2d_args(stack, 9, cortex_m::OutChannelsAt::kFirst, &a, true, packed_int4);
  ETARM_KERNEL_CHECK(ctx, wrong == nullptr, "%s: %s", name, wrong);
  ETARM_KERNEL_CHECK(
      ctx, a.weight_d3 == a.in_c, "%s: weight [C_out, KH, KW, %d] for an input of %d channels", name,
      static_cast<int>(a.weight_d3), static_cast<int>(a.in_c));

  // CMSIS-NN takes offsets added to the values: the negated input zero point.
  const cmsis_nn_conv_params params = {
      -a.input_zero_point,          a.output_zero_point,           {a.stride_w, a.stride_h},
      {a.padding_w, a.padding_h},   {a.dilation_w, a.dilation_h},  {a.activation_min, a.activation_max}};
  const cmsis_nn_per_channel_quant_params quant = {
      const_cast<int32_t*>(a.multipliers->const_data_ptr<int32_t>()),
      const_cast<int32_t*>(a.shifts->const_data_ptr<int32_t>())};
  const cmsis_nn_dims input_dims = {a.n, a.in_h, a.in_w, a.in_c};
  const cmsis_nn_dims filter_dims = {a.out_c, a.kernel_h, a.kernel_w, a.in_c};
  const cmsis_nn_dims bias_dims = {1, 1, 1, a.out_c};
  const cmsis_nn_dims output_dims = {a.n, a.out_h, a.out_w, a.out_c};
  const int32_t bytes = a.s4
      ? arm_convolve_wrapper_s4_get_buffer_size(&params, &input_dims, &filter_dims, &output_dims)
      : a.s16 ? arm_convolve_wrapper_s16_get_buffer_size(&params, &input_dims, &filter_dims, &output_dims)
              : arm_convolve_wrapper_s8_get_buffer_size(&params, &input_dims, &filter_dims, &output_dims);
  cmsis_nn_context context = {nullptr, 0};
  if (!cortex_m::recorded_scratch(ctx, name, a.scratch_bytes, bytes, &context.buf, &context.size)) {
    return;
  }
  const int8_t* weight = a.weight->const_data_ptr<int8_t>();
  arm_cmsis_nn_status status;
  if (a.s4) {
    status = arm_convolve_wrapper_s4(
        &context, &params, &quant, &input_dims, a.input->const_data_ptr<int8_t>(), &filter_dims, weight, &bias_dims,
        a.bias->const_data_ptr<int32_t>(), &output_dims, a.out->mutable_data_ptr<int8_t>());
  } else if (a.s16) {
    status = arm_convolve_wrapper_s16(
        &context, &params, &quant, &input_dims, a.input->const_data_ptr<int16_t>(), &filter_dims, weight, &bias_dims,
        a.bias->const_data_ptr<int64_t>(), &output_dims, a.out->mutable_data_ptr<int16_t>());
  } else {
    status = arm_convolve_wrapper_s8(
        &context, &params, &quant, &input_dims, a.input->const_data_ptr<int8_t>(), &filter_dims, weight, &bias_dims,
        a.bias->const_data_ptr<int32_t>(), &output_dims, a.out->mutable_data_ptr<int8_t>());
  }
  ETARM_KERNEL_CHECK(ctx, status == ARM_CMSIS_NN_SUCCESS, "%s: CMSIS-NN failed (%d)", name, status);
}

void quantized_conv2d_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  convolve(ctx, stack, false);
}

void quantized_conv2d_s4_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  convolve(ctx, stack, true);
}

} // namespace
ETARM_KERNEL(cortex_m, quantized_conv2d, out, quantized_conv2d_out)
ETARM_KERNEL(cortex_m, quantized_conv2d_s4, out, quantized_conv2d_s4_out)
} // namespace kernels
} // namespace etarm
