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
//
// int16 input and output (a16w8): zero points 0, an int64 bias, an empty kernel_sum, arm_fully_connected_s16 (per
// channel: once per batch row and output channel); its rq uses the multiplier's top 15 bits
// (python/etarm/cortex_m/ops/library.py rescale_s16).
//
// cortex_m::quantized_linear_s4.out(Tensor input, int input_zero_point, Tensor weight, Tensor? bias,
//     Tensor multipliers, Tensor shifts, int output_zero_point, int activation_min, int activation_max,
//     int[] weight_shape, *, Tensor(a!) out) -> Tensor(a!)
// int4 weights (a8w4): `weight` is int8 [ceil(N * K / 2)], the [N, K] values of weight_shape packed two per byte, low
// nibble first (python/etarm/cortex_m/int4.py); int8 input and output, the same arithmetic, no kernel sums (the s4
// kernels sum the weights themselves): arm_fully_connected_s4 per tensor, arm_convolve_1x1_s4_fast per channel.
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

bool vector_of(const Tensor* t, ScalarType type, ssize_t length) {
  return t != nullptr && t->scalar_type() == type && t->dim() == 1 && t->size(0) == length && contiguous(*t) &&
      (length == 0 || has_data(*t));
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

// The checked arguments of one call: `n` batch rows of `k` inputs into `c` outputs, `channels` scales (1 or c).
struct Linear {
  const Tensor* input;
  const Tensor* weight;
  const Tensor* bias;  // nullptr without one
  const Tensor* kernel_sum;
  const int32_t* multipliers;
  const int32_t* shifts;
  int32_t input_zp, output_zp;
  cmsis_nn_activation activation;
  int32_t n, k, c, channels;
  const Tensor* out;
};

arm_cmsis_nn_status linear_s8(const Linear& l) {
  const int8_t* input_data = l.input->const_data_ptr<int8_t>();
  const int8_t* weight_data = l.weight->const_data_ptr<int8_t>();
  const int32_t* bias_data = l.bias != nullptr ? l.bias->const_data_ptr<int32_t>() : nullptr;
  int8_t* output_data = l.out->mutable_data_ptr<int8_t>();
  const cmsis_nn_dims input_dims = {l.n, 1, 1, l.k};
  const cmsis_nn_dims bias_dims = {1, 1, 1, l.c};
  const cmsis_nn_dims output_dims = {l.n, 1, 1, l.c};
  if (l.channels == 1) {
    // CMSIS-NN's MVE path wants the weights' row sums in its context buffer (the size its size function
    // gives; the DSP and plain C paths want none): the constant kernel_sum, never written.
    const cmsis_nn_dims filter_dims = {l.k, 1, 1, l.c};
    const int32_t buffer_bytes = arm_fully_connected_s8_get_buffer_size(&filter_dims);
    if (buffer_bytes > static_cast<int32_t>(l.c * sizeof(int32_t))) {
      ET_LOG(Error, "%s: CMSIS-NN wants a %d byte buffer, the kernel sums have %d", kName,
             static_cast<int>(buffer_bytes), static_cast<int>(l.c * sizeof(int32_t)));
      return ARM_CMSIS_NN_ARG_ERROR;
    }
    cmsis_nn_context context = {
        buffer_bytes > 0 ? const_cast<int32_t*>(l.kernel_sum->const_data_ptr<int32_t>()) : nullptr, buffer_bytes};
    // CMSIS-NN takes offsets added to the values: the negated zero point of the input.
    cmsis_nn_fc_params params = {-l.input_zp, 0, l.output_zp, l.activation};
    cmsis_nn_per_tensor_quant_params quant = {l.multipliers[0], l.shifts[0]};
    return arm_fully_connected_s8(
        &context, &params, &quant, &input_dims, input_data, &filter_dims, weight_data, &bias_dims, bias_data,
        &output_dims, output_data);
  }
  // Per-channel: each batch row is one 1x1 pixel of a [n, 1, 1, K] image, the weight a [N, 1, 1, K] filter.
  const int32_t buffer_bytes = arm_convolve_1x1_s8_fast_get_buffer_size(&input_dims);
  if (buffer_bytes != 0) {
    ET_LOG(Error, "%s: CMSIS-NN wants a %d byte buffer", kName, static_cast<int>(buffer_bytes));
    return ARM_CMSIS_NN_ARG_ERROR;
  }
  cmsis_nn_context context = {nullptr, 0};
  cmsis_nn_conv_params params = {-l.input_zp, l.output_zp, {1, 1}, {0, 0}, {1, 1}, l.activation};
  cmsis_nn_per_channel_quant_params quant = {const_cast<int32_t*>(l.multipliers), const_cast<int32_t*>(l.shifts)};
  const cmsis_nn_dims filter_dims = {l.c, 1, 1, l.k};
  return arm_convolve_1x1_s8_fast(
      &context, &params, &quant, &input_dims, input_data, &filter_dims, weight_data, &bias_dims, bias_data,
      &output_dims, output_data);
}

arm_cmsis_nn_status linear_s16(const Linear& l) {
  const int16_t* input_data = l.input->const_data_ptr<int16_t>();
  const int8_t* weight_data = l.weight->const_data_ptr<int8_t>();
  const int64_t* bias_data = l.bias != nullptr ? l.bias->const_data_ptr<int64_t>() : nullptr;
  int16_t* output_data = l.out->mutable_data_ptr<int16_t>();
  const cmsis_nn_dims filter_dims = {l.k, 1, 1, l.c};
  if (arm_fully_connected_s16_get_buffer_size(&filter_dims) != 0) {
    ET_LOG(Error, "%s: CMSIS-NN's s16 fully-connected wants a buffer", kName);
    return ARM_CMSIS_NN_ARG_ERROR;
  }
  cmsis_nn_context context = {nullptr, 0};
  cmsis_nn_fc_params params = {0, 0, 0, l.activation};
  const cmsis_nn_dims bias_dims = {1, 1, 1, l.c};
  if (l.channels == 1) {
    cmsis_nn_per_tensor_quant_params quant = {l.multipliers[0], l.shifts[0]};
    const cmsis_nn_dims input_dims = {l.n, 1, 1, l.k};
    const cmsis_nn_dims output_dims = {l.n, 1, 1, l.c};
    return arm_fully_connected_s16(
        &context, &params, &quant, &input_dims, input_data, &filter_dims, weight_data, &bias_dims, bias_data,
        &output_dims, output_data);
  }
  // Per-channel (the snapshot's s16 fully-connected takes one scale): one output of one row per call.
  const cmsis_nn_dims row_filter_dims = {l.k, 1, 1, 1};
  const cmsis_nn_dims input_dims = {1, 1, 1, l.k};
  const cmsis_nn_dims output_dims = {1, 1, 1, 1};
  for (int32_t row = 0; row < l.n; ++row) {
    for (int32_t channel = 0; channel < l.c; ++channel) {
      cmsis_nn_per_tensor_quant_params quant = {l.multipliers[channel], l.shifts[channel]};
      const arm_cmsis_nn_status status = arm_fully_connected_s16(
          &context, &params, &quant, &input_dims, input_data + row * l.k, &row_filter_dims,
          weight_data + channel * l.k, &bias_dims, bias_data != nullptr ? bias_data + channel : nullptr,
          &output_dims, output_data + row * l.c + channel);
      if (status != ARM_CMSIS_NN_SUCCESS) {
        return status;
      }
    }
  }
  return ARM_CMSIS_NN_SUCCESS;
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
  // int8 -> int8 with int32 biases (a8w8), or int16 -> int16 with int64 ones (a16w8); int8 weights always.
  const bool s16 = input->scalar_type() == ScalarType::Short;
  ETARM_KERNEL_CHECK(
      ctx,
      (input->scalar_type() == ScalarType::Char || s16) && out->scalar_type() == input->scalar_type() &&
          weight->scalar_type() == ScalarType::Char,
      "%s: int8 or int16 input, the same output type, int8 weight only", kName);
  const int32_t lowest = s16 ? cortex_m::activation_min<int16_t>() : INT8_MIN;
  const int32_t highest = s16 ? INT16_MAX : INT8_MAX;
  ETARM_KERNEL_CHECK(
      ctx,
      s16 ? input_zp == 0 && output_zp == 0
          : input_zp >= INT8_MIN && input_zp <= INT8_MAX && output_zp >= INT8_MIN && output_zp <= INT8_MAX,
      "%s: zero point out of range (int8's, or 0 for int16)", kName);
  ETARM_KERNEL_CHECK(
      ctx, act_min >= lowest && act_max <= highest && act_min <= act_max, "%s: bad activation range [%d, %d]",
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
      (channels == 1 || channels == out_features) && vector_of(multipliers, ScalarType::Int, channels) &&
          vector_of(shifts, ScalarType::Int, channels) &&
          vector_of(kernel_sum, ScalarType::Int, s16 ? 0 : out_features) &&
          (!has_bias || vector_of(bias, s16 ? ScalarType::Long : ScalarType::Int, out_features)),
      "%s: bias (int32; int64 for int16), kernel_sum (int32, empty for int16), multipliers or shifts (int32): "
      "vectors of the output's features (1 or N for the scales)",
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
  ETARM_KERNEL_CHECK(ctx, has_data(*weight), "%s: tensor without data", kName);
  const ssize_t batches = input->numel() / in_features;
  if (batches == 0) {
    return;
  }
  ETARM_KERNEL_CHECK(ctx, has_data(*input) && has_data(*out), "%s: tensor without data", kName);
  ETARM_KERNEL_CHECK(
      ctx, batches <= INT32_MAX && out_features <= INT32_MAX && in_features <= INT32_MAX, "%s: too large", kName);

  const Linear l = {
      input, weight, bias, kernel_sum, multipliers->const_data_ptr<int32_t>(), shifts->const_data_ptr<int32_t>(),
      input_zp, output_zp, {act_min, act_max}, static_cast<int32_t>(batches), static_cast<int32_t>(in_features),
      static_cast<int32_t>(out_features), static_cast<int32_t>(channels), out};
  const arm_cmsis_nn_status status = s16 ? linear_s16(l) : linear_s8(l);
  ETARM_KERNEL_CHECK(ctx, status == ARM_CMSIS_NN_SUCCESS, "%s: CMSIS-NN failed (%d)", kName, status);
}

constexpr const char* kNameS4 = "cortex_m::quantized_linear_s4.out";

arm_cmsis_nn_status linear_s4(const Linear& l) {
  const int8_t* input_data = l.input->const_data_ptr<int8_t>();
  const int8_t* weight_data = l.weight->const_data_ptr<int8_t>();
  const int32_t* bias_data = l.bias != nullptr ? l.bias->const_data_ptr<int32_t>() : nullptr;
  int8_t* output_data = l.out->mutable_data_ptr<int8_t>();
  const cmsis_nn_dims input_dims = {l.n, 1, 1, l.k};
  const cmsis_nn_dims bias_dims = {1, 1, 1, l.c};
  const cmsis_nn_dims output_dims = {l.n, 1, 1, l.c};
  cmsis_nn_context context = {nullptr, 0};  // neither s4 kernel takes a buffer in this snapshot
  if (l.channels == 1) {
    const cmsis_nn_dims filter_dims = {l.k, 1, 1, l.c};
    cmsis_nn_fc_params params = {-l.input_zp, 0, l.output_zp, l.activation};
    cmsis_nn_per_tensor_quant_params quant = {l.multipliers[0], l.shifts[0]};
    return arm_fully_connected_s4(
        &context, &params, &quant, &input_dims, input_data, &filter_dims, weight_data, &bias_dims, bias_data,
        &output_dims, output_data);
  }
  if (arm_convolve_1x1_s4_fast_get_buffer_size(&input_dims) != 0) {
    ET_LOG(Error, "%s: CMSIS-NN's 1x1 s4 convolution wants a buffer", kNameS4);
    return ARM_CMSIS_NN_ARG_ERROR;
  }
  cmsis_nn_conv_params params = {-l.input_zp, l.output_zp, {1, 1}, {0, 0}, {1, 1}, l.activation};
  cmsis_nn_per_channel_quant_params quant = {const_cast<int32_t*>(l.multipliers), const_cast<int32_t*>(l.shifts)};
  const cmsis_nn_dims filter_dims = {l.c, 1, 1, l.k};
  return arm_convolve_1x1_s4_fast(
      &context, &params, &quant, &input_dims, input_data, &filter_dims, weight_data, &bias_dims, bias_data,
      &output_dims, output_data);
}

void quantized_linear_s4_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  ETARM_KERNEL_CHECK(
      ctx, stack.size() == 12, "%s: expected 12 arguments, got %d", kNameS4, static_cast<int>(stack.size()));
  const Tensor* input = tensor_arg(stack, 0);
  const Tensor* weight = tensor_arg(stack, 2);
  const bool has_bias = !is_none_arg(stack, 3);
  const Tensor* bias = has_bias ? tensor_arg(stack, 3) : nullptr;
  const Tensor* multipliers = tensor_arg(stack, 4);
  const Tensor* shifts = tensor_arg(stack, 5);
  const Tensor* out = tensor_arg(stack, 10);
  int32_t input_zp, output_zp, act_min, act_max;
  ArrayRef<int64_t> shape;
  ETARM_KERNEL_CHECK(
      ctx,
      input && weight && (!has_bias || bias) && multipliers && shifts && out && int32_scalar(stack, 1, &input_zp) &&
          int32_scalar(stack, 6, &output_zp) && int32_scalar(stack, 7, &act_min) && int32_scalar(stack, 8, &act_max) &&
          int_list_arg(stack, 9, &shape),
      "%s: bad arguments", kNameS4);
  ETARM_KERNEL_CHECK(
      ctx,
      input->scalar_type() == ScalarType::Char && out->scalar_type() == ScalarType::Char &&
          weight->scalar_type() == ScalarType::Char,
      "%s: int8 input, packed weight and output only", kNameS4);
  ETARM_KERNEL_CHECK(
      ctx,
      input_zp >= INT8_MIN && input_zp <= INT8_MAX && output_zp >= INT8_MIN && output_zp <= INT8_MAX &&
          act_min >= INT8_MIN && act_max <= INT8_MAX && act_min <= act_max,
      "%s: zero point or activation range beyond int8", kNameS4);
  ETARM_KERNEL_CHECK(
      ctx, shape.size() == 2 && shape[0] > 0 && shape[1] > 0 && shape[0] <= INT32_MAX && shape[1] <= INT32_MAX,
      "%s: weight_shape is not [N, K] of positive sizes", kNameS4);
  const ssize_t out_features = static_cast<ssize_t>(shape[0]);
  const ssize_t in_features = static_cast<ssize_t>(shape[1]);
  ETARM_KERNEL_CHECK(
      ctx, weight->dim() == 1 && contiguous(*weight) && weight->size(0) == (shape[0] * shape[1] + 1) / 2,
      "%s: the packed int4 weight's bytes do not match weight_shape [%d, %d] (two values per byte)", kNameS4,
      static_cast<int>(shape[0]), static_cast<int>(shape[1]));
  ETARM_KERNEL_CHECK(
      ctx, input->dim() >= 1 && input->size(input->dim() - 1) == in_features,
      "%s: input [..., K] and weight_shape [N, K] do not match", kNameS4);
  const ssize_t channels = multipliers->numel();
  ETARM_KERNEL_CHECK(
      ctx,
      (channels == 1 || channels == out_features) && vector_of(multipliers, ScalarType::Int, channels) &&
          vector_of(shifts, ScalarType::Int, channels) &&
          (!has_bias || vector_of(bias, ScalarType::Int, out_features)),
      "%s: bias, multipliers or shifts (int32): vectors of the output's features (1 or N for the scales)", kNameS4);
  ETARM_KERNEL_CHECK(
      ctx, valid_requantize(multipliers->const_data_ptr<int32_t>(), shifts->const_data_ptr<int32_t>(), channels),
      "%s: multiplier or shift out of range", kNameS4);
  ETARM_KERNEL_CHECK(ctx, contiguous(*input) && contiguous(*out), "%s: contiguous tensors only", kNameS4);
  int32_t sizes[kMaxDim];
  const size_t dim = static_cast<size_t>(input->dim());
  for (size_t d = 0; d + 1 < dim; ++d) {
    sizes[d] = static_cast<int32_t>(input->size(d));
  }
  sizes[dim - 1] = static_cast<int32_t>(out_features);
  ETARM_KERNEL_CHECK(
      ctx, static_cast<size_t>(out->dim()) == dim && resize_out(*out, sizes, dim), "%s: bad output shape", kNameS4);
  ETARM_KERNEL_CHECK(ctx, has_data(*weight), "%s: tensor without data", kNameS4);
  const ssize_t batches = input->numel() / in_features;
  if (batches == 0) {
    return;
  }
  ETARM_KERNEL_CHECK(ctx, has_data(*input) && has_data(*out), "%s: tensor without data", kNameS4);
  ETARM_KERNEL_CHECK(ctx, batches <= INT32_MAX, "%s: too large", kNameS4);
  const Linear l = {
      input, weight, bias, nullptr, multipliers->const_data_ptr<int32_t>(), shifts->const_data_ptr<int32_t>(),
      input_zp, output_zp, {act_min, act_max}, static_cast<int32_t>(batches), static_cast<int32_t>(in_features),
      static_cast<int32_t>(out_features), static_cast<int32_t>(channels), out};
  const arm_cmsis_nn_status status = linear_s4(l);
  ETARM_KERNEL_CHECK(ctx, status == ARM_CMSIS_NN_SUCCESS, "%s: CMSIS-NN failed (%d)", kNameS4, status);
}

} // namespace
ETARM_KERNEL(cortex_m, quantized_linear, out, quantized_linear_out)
ETARM_KERNEL(cortex_m, quantized_linear_s4, out, quantized_linear_s4_out)
} // namespace kernels
} // namespace etarm
