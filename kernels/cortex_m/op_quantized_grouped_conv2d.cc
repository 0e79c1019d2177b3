// cortex_m::quantized_grouped_conv2d.out(Tensor input, int input_zero_point, Tensor weight, Tensor bias,
//     Tensor multipliers, Tensor shifts, int[] stride, int[] padding, int[] dilation, int groups,
//     int output_zero_point, int activation_min, int activation_max, int scratch_bytes, *, Tensor(a!) out)
//     -> Tensor(a!)
//
// int8 NHWC input [N, H, W, C_in], symmetric int8 weights OHWI [C_out, KH, KW, C_in / groups], C_in and C_out
// multiples of groups; output channel o (of group g = o / (C_out / groups)) reads input channels
// [g * C_in / groups, (g + 1) * C_in / groups) only, the rest as cortex_m::quantized_conv2d:
//   acc[n, y, x, o] = bias[o] + sum_{i, j, c} (input[n, y * sh - ph + i * dh, x * sw - pw + j * dw, g * C_in / groups + c]
//                                               - input_zero_point) * weight[o, i, j, c]
//   out[n, y, x, o] = clamp(rq(acc, multipliers[o], shifts[o]) + output_zero_point, activation_min, activation_max)
// TOSA's CONV2D per group, RESCALE (single rounding), CLAMP, in NHWC. CMSIS-NN has no groups: per group, the group's
// input channels are gathered into a dense NHWC buffer, arm_convolve_wrapper_s8 convolves them with the group's rows
// of weights (contiguous in OHWI) into a dense buffer, which is scattered into the group's output channels. The two
// buffers and CMSIS-NN's scratch come from the method's temporary allocator, once for all groups.
// int16 input and output (a16w8): zero points 0, an int64 bias, arm_convolve_wrapper_s16 per group, whose rq uses the
// multiplier's top 15 bits (python/etarm/cortex_m/ops/library.py rescale_s16).
// python/etarm/cortex_m/passes/quantized_grouped_conv2d_as_cmsis_nn.py.
#include <cstring>

#include "arm_nnfunctions.h"
#include "kernels/cortex_m/window_args.h"

namespace etarm {
namespace kernels {
namespace {

using cortex_m::Conv2dArgs;

constexpr const char* kName = "cortex_m::quantized_grouped_conv2d.out";

// Copies `width` channels from `from` (rows of `from_channels`) to `to` (rows of `to_channels`), `rows` rows, at the
// channel offsets given.
template <typename T>
void copy_channels(
    const T* from, int32_t from_channels, int32_t from_offset, T* to, int32_t to_channels, int32_t to_offset,
    int32_t width, int32_t rows) {
  for (int32_t r = 0; r < rows; ++r) {
    std::memcpy(to + r * to_channels + to_offset, from + r * from_channels + from_offset, width * sizeof(T));
  }
}

// The groups' loop (module comment) for activations T and biases B; `convolve` is arm_convolve_wrapper_s8 or _s16.
template <typename T, typename B, typename Convolve>
arm_cmsis_nn_status convolve_groups(
    const Conv2dArgs& a, int32_t groups, cmsis_nn_context* context, const cmsis_nn_conv_params& params,
    const cmsis_nn_dims& input_dims, const cmsis_nn_dims& filter_dims, const cmsis_nn_dims& bias_dims,
    const cmsis_nn_dims& output_dims, int32_t in_pixels, int32_t out_pixels, T* group_input, T* group_output,
    Convolve convolve, int32_t* failed_group) {
  const int32_t group_in = input_dims.c;
  const int32_t group_out = output_dims.c;
  const T* input = a.input->const_data_ptr<T>();
  const int8_t* weight = a.weight->const_data_ptr<int8_t>();
  const B* bias = a.bias->const_data_ptr<B>();
  int32_t* multipliers = const_cast<int32_t*>(a.multipliers->const_data_ptr<int32_t>());
  int32_t* shifts = const_cast<int32_t*>(a.shifts->const_data_ptr<int32_t>());
  T* out = a.out->mutable_data_ptr<T>();
  const int32_t weights_per_group = group_out * a.kernel_h * a.kernel_w * group_in;
  for (int32_t g = 0; g < groups; ++g) {
    copy_channels(input, a.in_c, g * group_in, group_input, group_in, 0, group_in, in_pixels);
    const int32_t first = g * group_out;
    const cmsis_nn_per_channel_quant_params quant = {multipliers + first, shifts + first};
    const arm_cmsis_nn_status status = convolve(
        context, &params, &quant, &input_dims, group_input, &filter_dims, weight + g * weights_per_group, &bias_dims,
        bias + first, &output_dims, group_output);
    if (status != ARM_CMSIS_NN_SUCCESS) {
      *failed_group = g;
      return status;
    }
    copy_channels(group_output, group_out, 0, out, a.out_c, first, group_out, out_pixels);
  }
  return ARM_CMSIS_NN_SUCCESS;
}

void quantized_grouped_conv2d_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  Conv2dArgs a;
  const char* wrong = cortex_m::conv2d_args(stack, 10, cortex_m::OutChannelsAt::kFirst, &a, true);
  ETARM_KERNEL_CHECK(ctx, wrong == nullptr, "%s: %s", kName, wrong);
  int64_t groups;
  ETARM_KERNEL_CHECK(
      ctx, int_arg(stack, 9, &groups) && groups >= 1 && a.in_c % groups == 0 && a.out_c % groups == 0,
      "%s: groups must be >= 1 and divide the input's and output's channels", kName);
  const int32_t group_in = a.in_c / static_cast<int32_t>(groups);
  const int32_t group_out = a.out_c / static_cast<int32_t>(groups);
  ETARM_KERNEL_CHECK(
      ctx, a.weight->size(3) == group_in, "%s: weight [C_out, KH, KW, %d] for %d groups of %d input channels", kName,
      static_cast<int>(a.weight->size(3)), static_cast<int>(groups), static_cast<int>(group_in));

  const cmsis_nn_conv_params params = {
      -a.input_zero_point,          a.output_zero_point,           {a.stride_w, a.stride_h},
      {a.padding_w, a.padding_h},   {a.dilation_w, a.dilation_h},  {a.activation_min, a.activation_max}};
  const cmsis_nn_dims input_dims = {a.n, a.in_h, a.in_w, group_in};
  const cmsis_nn_dims filter_dims = {group_out, a.kernel_h, a.kernel_w, group_in};
  const cmsis_nn_dims bias_dims = {1, 1, 1, group_out};
  const cmsis_nn_dims output_dims = {a.n, a.out_h, a.out_w, group_out};
  // Each group's share of the input and output, in bytes: a tensor's size fits ssize_t, a buffer must fit int32.
  const ssize_t element = a.s16 ? 2 : 1;
  const ssize_t group_in_bytes = a.input->numel() / groups * element;
  const ssize_t group_out_bytes = a.out->numel() / groups * element;
  ETARM_KERNEL_CHECK(
      ctx, group_in_bytes <= INT32_MAX && group_out_bytes <= INT32_MAX, "%s: a group's data beyond 2 GiB", kName);
  const int32_t in_pixels = static_cast<int32_t>(group_in_bytes / element / group_in);
  const int32_t out_pixels = static_cast<int32_t>(group_out_bytes / element / group_out);
  const int32_t bytes = a.s16
      ? arm_convolve_wrapper_s16_get_buffer_size(&params, &input_dims, &filter_dims, &output_dims)
      : arm_convolve_wrapper_s8_get_buffer_size(&params, &input_dims, &filter_dims, &output_dims);
  cmsis_nn_context context = {nullptr, 0};
  if (!cortex_m::recorded_scratch(ctx, kName, a.scratch_bytes, bytes, &context.buf, &context.size)) {
    return;
  }
  void* group_input;
  void* group_output;
  ETARM_KERNEL_CHECK(
      ctx,
      cortex_m::scratch_buffer(ctx, static_cast<int32_t>(group_in_bytes), &group_input) &&
          cortex_m::scratch_buffer(ctx, static_cast<int32_t>(group_out_bytes), &group_output),
      "%s: no temporary memory for the %d + %d bytes of a group's buffers", kName, static_cast<int>(group_in_bytes),
      static_cast<int>(group_out_bytes));

  int32_t failed_group = 0;
  const int32_t count = static_cast<int32_t>(groups);
  const arm_cmsis_nn_status status = a.s16
      ? convolve_groups<int16_t, int64_t>(
            a, count, &context, params, input_dims, filter_dims, bias_dims, output_dims, in_pixels, out_pixels,
            static_cast<int16_t*>(group_input), static_cast<int16_t*>(group_output), arm_convolve_wrapper_s16,
            &failed_group)
      : convolve_groups<int8_t, int32_t>(
            a, count, &context, params, input_dims, filter_dims, bias_dims, output_dims, in_pixels, out_pixels,
            static_cast<int8_t*>(group_input), static_cast<int8_t*>(group_output), arm_convolve_wrapper_s8,
            &failed_group);
  ETARM_KERNEL_CHECK(ctx, status == ARM_CMSIS_NN_SUCCESS, "%s: CMSIS-NN failed (%d) on group %d", kName, status,
                     static_cast<int>(failed_group));
}

} // namespace
ETARM_KERNEL(cortex_m, quantized_grouped_conv2d, out, quantized_grouped_conv2d_out)
} // namespace kernels
} // namespace etarm
