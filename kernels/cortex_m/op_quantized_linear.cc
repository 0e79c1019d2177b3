// cortex_m::quantized_linear.out(Tensor input, int input_zero_point, Tensor weight, Tensor? bias,
//     Tensor kernel_sum, Tensor multipliers, Tensor shifts, int output_zero_point, int activation_min,
//     int activation_max, *, Tensor(a!) out) -> Tensor(a!)
//
// int8 input [..., K], int8 weight [N, K] (symmetric: zero point 0, torch's nn.Linear layout), int32 bias [N]
// (at scale input_scale * weight_scale[n]), int32 kernel_sum [N] = sum_k weight[n, k] (computed ahead of time:
// CMSIS-NN's MVE fully-connected reads it, and adds the bias itself), int32 multipliers/shifts of length 1
// (per-tensor weights: arm_fully_connected_s8) or N (per-channel weights: arm_convolve_1x1_s8_fast over the
// batch as 1x1 pixels, since this CMSIS-NN snapshot has no per-channel fully-connected):
//   acc[b, n] = sum_k (input[b, k] - input_zero_point) * weight[n, k] + bias[n]
//   out[b, n] = clamp(rq(acc[b, n], multipliers[n], shifts[n]) + output_zero_point, activation_min, activation_max)
// with rq(x, m, s) = round_half_up(x * m * 2^(s - 31)): TOSA's FULLY_CONNECTED (MATMUL) then RESCALE with single
// rounding, then the fused activation as a CLAMP. python/etarm/cortex_m/passes/quantized_linear_as_cmsis_nn.py.
#include "arm_nnfunctions.h"
#include "kernels/cortex_m/cortex_m_util.h"

namespace etarm {
namespace kernels {
namespace {

constexpr const char* kName = "cortex_m::quantized_linear.out";

bool int32_scalar(Span<EValue*> stack, size_t i, int32_t* v) {
  int64_t value;
  if (!int_arg(stack, i, &value) || value < INT32_MIN || value > INT32_MAX) {
    return false;
  }
  *v = static_cast<int32_t>(value);
  return true;
}

bool int32_vector(const Tensor* t, ssize_t length) {
  return t != nullptr && t->scalar_type() == ScalarType::Int && t->dim() == 1 && t->size(0) == length &&
      contiguous(*t) && (length == 0 || has_data(*t));
}

// Every multiplier positive, every shift in [-31, 0] (scales below 1, as cortex_m_util.h valid_int8).
bool valid_requantize(const int32_t* multipliers, const int32_t* shifts, ssize_t count) {
  for (ssize_t i = 0; i < count; ++i) {
    if (multipliers[i] <= 0 || shifts[i] < -31 || shifts[i] > 0) {
      return false;
    }
  }
  return true;
}

void quantized_linear_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  ETARM_KERNEL_CHECK(ctx, stack.size() == 12, "%s: expected 12 arguments, got %d", kName, static_cast<int>(stack.size()));
  const Tensor* input = tensor_arg(stack, 0);
  const Tensor* weight = tensor_arg(stack, 2);
  const bool has_bias = !is_none_arg(stack, 3);
  const Tensor* bias = has_bias ? tensor_arg(stack, 3) : nullptr;
  const Tensor* kernel_sum = tensor_arg(stack, 4);
  const Tensor* multipliers = tensor_arg(stack, 5);
  const Tensor* shifts = tensor_arg(stack, 6);
  const Tensor* out = tensor_arg(stack, 10);
  int32_t input_zp, output_zp, act_min, act_max;
  ETARM_KERNEL_CHECK(
      ctx,
      input && weight && (!has_bias || bias) && kernel_sum && multipliers && shifts && out &&
          int32_scalar(stack, 1, &input_zp) && int32_scalar(stack, 7, &output_zp) &&
          int32_scalar(stack, 8, &act_min) && int32_scalar(stack, 9, &act_max),
      "%s: bad arguments", kName);
  ETARM_KERNEL_CHECK(
      ctx,
      input->scalar_type() == ScalarType::Char && weight->scalar_type() == ScalarType::Char &&
          out->scalar_type() == ScalarType::Char,
      "%s: int8 input, weight and output only", kName);
  ETARM_KERNEL_CHECK(
      ctx, input_zp >= INT8_MIN && input_zp <= INT8_MAX && output_zp >= INT8_MIN && output_zp <= INT8_MAX,
      "%s: zero point out of the int8 range", kName);
  ETARM_KERNEL_CHECK(
      ctx, act_min >= INT8_MIN && act_max <= INT8_MAX && act_min <= act_max, "%s: bad activation range [%d, %d]",
      kName, static_cast<int>(act_min), static_cast<int>(act_max));
  ETARM_KERNEL_CHECK(
      ctx, weight->dim() == 2 && input->dim() >= 1 && input->size(input->dim() - 1) == weight->size(1),
      "%s: input [..., K] and weight [N, K] do not match", kName);
  const ssize_t out_features = weight->size(0);
  const ssize_t in_features = weight->size(1);
  ETARM_KERNEL_CHECK(ctx, out_features > 0 && in_features > 0, "%s: empty weight", kName);
  const ssize_t channels = multipliers->numel();
  ETARM_KERNEL_CHECK(
      ctx,
      (channels == 1 || channels == out_features) && int32_vector(multipliers, channels) &&
          int32_vector(shifts, channels) && int32_vector(kernel_sum, out_features) &&
          (!has_bias || int32_vector(bias, out_features)),
      "%s: bias, kernel_sum, multipliers or shifts: int32 vectors of the output's features (1 or N for the scales)",
      kName);
  ETARM_KERNEL_CHECK(
      ctx, valid_requantize(multipliers->const_data_ptr<int32_t>(), shifts->const_data_ptr<int32_t>(), channels),
      "%s: multiplier or shift out of range", kName);
  ETARM_KERNEL_CHECK(ctx, contiguous(*input) && contiguous(*weight) && contiguous(*out), "%s: contiguous tensors only", kName);
  int32_t sizes[kMaxDim];
  const size_t dim = static_cast<size_t>(input->dim());
  for (size_t d = 0; d + 1 < dim; ++d) {
    sizes[d] = static_cast<int32_t>(input->size(d));
  }
  sizes[dim - 1] = static_cast<int32_t>(out_features);
  ETARM_KERNEL_CHECK(
      ctx, static_cast<size_t>(out->dim()) == dim && resize_out(*out, sizes, dim), "%s: bad output shape", kName);
  ETARM_KERNEL_CHECK(ctx, has_data(*weight) && has_data(*kernel_sum), "%s: tensor without data", kName);
  const ssize_t batches = input->numel() / in_features;
  if (batches == 0) {
    return;
  }
  ETARM_KERNEL_CHECK(ctx, has_data(*input) && has_data(*out), "%s: tensor without data", kName);
  ETARM_KERNEL_CHECK(
      ctx, batches <= INT32_MAX && out_features <= INT32_MAX && in_features <= INT32_MAX, "%s: too large", kName);

  const int32_t n = static_cast<int32_t>(batches);
  const int32_t k = static_cast<int32_t>(in_features);
  const int32_t c = static_cast<int32_t>(out_features);
  const int8_t* input_data = input->const_data_ptr<int8_t>();
  const int8_t* weight_data = weight->const_data_ptr<int8_t>();
  const int32_t* bias_data = has_bias ? bias->const_data_ptr<int32_t>() : nullptr;
  int8_t* output_data = out->mutable_data_ptr<int8_t>();
  const cmsis_nn_activation activation = {act_min, act_max};
  arm_cmsis_nn_status status;
  if (channels == 1) {
    // CMSIS-NN's MVE path wants the weights' row sums in its context buffer (the size its size function
    // gives; the DSP and plain C paths want none): the constant kernel_sum, never written.
    const cmsis_nn_dims filter_dims = {k, 1, 1, c};
    const int32_t buffer_bytes = arm_fully_connected_s8_get_buffer_size(&filter_dims);
    ETARM_KERNEL_CHECK(
        ctx, buffer_bytes <= static_cast<int32_t>(c * sizeof(int32_t)),
        "%s: CMSIS-NN wants a %d byte buffer, the kernel sums have %d", kName, static_cast<int>(buffer_bytes),
        static_cast<int>(c * sizeof(int32_t)));
    cmsis_nn_context context = {
        buffer_bytes > 0 ? const_cast<int32_t*>(kernel_sum->const_data_ptr<int32_t>()) : nullptr, buffer_bytes};
    // CMSIS-NN takes offsets added to the values: the negated zero point of the input.
    cmsis_nn_fc_params params = {-input_zp, 0, output_zp, activation};
    cmsis_nn_per_tensor_quant_params quant = {multipliers->const_data_ptr<int32_t>()[0], shifts->const_data_ptr<int32_t>()[0]};
    const cmsis_nn_dims input_dims = {n, 1, 1, k};
    const cmsis_nn_dims bias_dims = {1, 1, 1, c};
    const cmsis_nn_dims output_dims = {n, 1, 1, c};
    status = arm_fully_connected_s8(
        &context, &params, &quant, &input_dims, input_data, &filter_dims, weight_data, &bias_dims, bias_data,
        &output_dims, output_data);
  } else {
    // Per-channel: each batch row is one 1x1 pixel of a [n, 1, 1, K] image, the weight a [N, 1, 1, K] filter.
    const cmsis_nn_dims input_dims = {n, 1, 1, k};
    const int32_t buffer_bytes = arm_convolve_1x1_s8_fast_get_buffer_size(&input_dims);
    ETARM_KERNEL_CHECK(ctx, buffer_bytes == 0, "%s: CMSIS-NN wants a %d byte buffer", kName, static_cast<int>(buffer_bytes));
    cmsis_nn_context context = {nullptr, 0};
    cmsis_nn_conv_params params = {-input_zp, output_zp, {1, 1}, {0, 0}, {1, 1}, activation};
    cmsis_nn_per_channel_quant_params quant = {
        const_cast<int32_t*>(multipliers->const_data_ptr<int32_t>()), const_cast<int32_t*>(shifts->const_data_ptr<int32_t>())};
    const cmsis_nn_dims filter_dims = {c, 1, 1, k};
    const cmsis_nn_dims bias_dims = {1, 1, 1, c};
    const cmsis_nn_dims output_dims = {n, 1, 1, c};
    status = arm_convolve_1x1_s8_fast(
        &context, &params, &quant, &input_dims, input_data, &filter_dims, weight_data, &bias_dims, bias_data,
        &output_dims, output_data);
  }
  ETARM_KERNEL_CHECK(ctx, status == ARM_CMSIS_NN_SUCCESS, "%s: CMSIS-NN failed (%d)", kName, status);
}

} // namespace
ETARM_REGISTER_KERNEL("cortex_m::quantized_linear.out", quantized_linear_out)
} // namespace kernels
} // namespace etarm
