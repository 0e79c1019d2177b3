#include "kernels/cortex_m/window_args.h"

namespace etarm {
namespace kernels {
namespace cortex_m {

namespace {

bool int32_value(Span<EValue*> stack, size_t i, int32_t* v) {
  int64_t value;
  if (!int_arg(stack, i, &value) || value < INT32_MIN || value > INT32_MAX) {
    return false;
  }
  *v = static_cast<int32_t>(value);
  return true;
}

// An int list [h, w] with each value in [low, 65535] (CMSIS-NN keeps some of them in 16 bits).
bool pair(Span<EValue*> stack, size_t i, int64_t low, int32_t* h, int32_t* w) {
  ArrayRef<int64_t> list;
  if (!int_list_arg(stack, i, &list) || list.size() != 2) {
    return false;
  }
  for (int64_t v : list) {
    if (v < low || v > UINT16_MAX) {
      return false;
    }
  }
  *h = static_cast<int32_t>(list[0]);
  *w = static_cast<int32_t>(list[1]);
  return true;
}

bool vector_of(const Tensor* t, ScalarType type, int32_t length) {
  return t != nullptr && t->scalar_type() == type && t->dim() == 1 && t->size(0) == length && contiguous(*t) &&
      has_data(*t);
}

// Output extent of one spatial dim, or 0 when the (dilated) kernel does not fit the padded input.
int32_t output_extent(int32_t in, int32_t kernel, int32_t stride, int32_t padding, int32_t dilation) {
  const int64_t span = int64_t{dilation} * (kernel - 1) + 1;
  const int64_t padded = int64_t{in} + 2 * int64_t{padding};
  return padded < span ? 0 : static_cast<int32_t>((padded - span) / stride + 1);
}

} // namespace

const char* conv2d_args(
    Span<EValue*> stack, size_t output_at, OutChannelsAt layout, Conv2dArgs* a, bool int16_allowed,
    bool packed_int4) {
  const size_t scratch_at = output_at + (packed_int4 ? 4 : 3);  // after the packed weight's shape
  if (stack.size() != scratch_at + 3) {  // scratch_bytes, out, and out again as the returned value
    return "wrong number of arguments";
  }
  a->s4 = packed_int4;
  a->input = tensor_arg(stack, 0);
  a->weight = tensor_arg(stack, 2);
  a->bias = tensor_arg(stack, 3);
  a->multipliers = tensor_arg(stack, 4);
  a->shifts = tensor_arg(stack, 5);
  a->out = tensor_arg(stack, scratch_at + 1);
  // The weight's [d0, KH, KW, d3]: its tensor's sizes, or for packed int4 the shape argument.
  int64_t weight_dims[4] = {0, 0, 0, 0};
  ArrayRef<int64_t> shape;
  if (packed_int4) {
    if (!int_list_arg(stack, output_at + 3, &shape) || shape.size() != 4) {
      return "bad weight_shape (the packed int4 weight's 4 dims)";
    }
  }
  if (!a->input || !a->weight || !a->bias || !a->multipliers || !a->shifts || !a->out ||
      !int32_value(stack, 1, &a->input_zero_point) || !int32_value(stack, output_at, &a->output_zero_point) ||
      !int32_value(stack, output_at + 1, &a->activation_min) || !int32_value(stack, output_at + 2, &a->activation_max) ||
      !int32_value(stack, scratch_at, &a->scratch_bytes) ||
      !pair(stack, 6, 1, &a->stride_h, &a->stride_w) || !pair(stack, 7, 0, &a->padding_h, &a->padding_w) ||
      !pair(stack, 8, 1, &a->dilation_h, &a->dilation_w)) {
    return "bad arguments (stride and dilation >= 1, padding >= 0, each at most 65535)";
  }
  a->s16 = int16_allowed && !packed_int4 && a->input->scalar_type() == ScalarType::Short;
  const ScalarType activations = a->s16 ? ScalarType::Short : ScalarType::Char;
  if (a->input->scalar_type() != activations || a->weight->scalar_type() != ScalarType::Char ||
      a->out->scalar_type() != activations) {
    return int16_allowed && !packed_int4 ? "int8 or int16 input, the same output type, int8 weight only"
                                         : "int8 input, weight and output only";
  }
  if (a->s16 ? a->input_zero_point != 0 || a->output_zero_point != 0
             : a->input_zero_point < INT8_MIN || a->input_zero_point > INT8_MAX ||
              a->output_zero_point < INT8_MIN || a->output_zero_point > INT8_MAX) {
    return "zero point out of range (int8's, or 0 for int16)";
  }
  const int32_t lowest = a->s16 ? -INT16_MAX : INT8_MIN;  // cortex_m_util.h activation_min
  const int32_t highest = a->s16 ? INT16_MAX : INT8_MAX;
  if (a->activation_min < lowest || a->activation_max > highest || a->activation_min > a->activation_max) {
    return "bad activation range";
  }
  if (a->input->dim() != 4 || a->weight->dim() != (packed_int4 ? 1 : 4) || a->out->dim() != 4) {
    return packed_int4 ? "4-D NHWC input and output, a 1-D packed int4 weight only"
                       : "4-D NHWC input, weight and output only";
  }
  for (size_t d = 0; d < 4; ++d) {
    weight_dims[d] = packed_int4 ? shape[d] : a->weight->size(static_cast<ssize_t>(d));
    if (a->input->size(static_cast<ssize_t>(d)) > UINT16_MAX || weight_dims[d] < 0 || weight_dims[d] > UINT16_MAX) {
      return "a dimension beyond 65535 (or a negative weight_shape)";
    }
  }
  if (packed_int4) {
    // At most 65535^4 values, below 2^64: uint64 holds the count.
    const uint64_t count = static_cast<uint64_t>(weight_dims[0]) * static_cast<uint64_t>(weight_dims[1]) *
        static_cast<uint64_t>(weight_dims[2]) * static_cast<uint64_t>(weight_dims[3]);
    if (static_cast<uint64_t>(a->weight->size(0)) != (count + 1) / 2) {
      return "the packed int4 weight's bytes do not match weight_shape (two values per byte)";
    }
  }
  if (!contiguous(*a->input) || !contiguous(*a->weight) || !contiguous(*a->out)) {
    return "contiguous tensors only";
  }
  a->n = static_cast<int32_t>(a->input->size(0));
  a->in_h = static_cast<int32_t>(a->input->size(1));
  a->in_w = static_cast<int32_t>(a->input->size(2));
  a->in_c = static_cast<int32_t>(a->input->size(3));
  a->kernel_h = static_cast<int32_t>(weight_dims[1]);
  a->kernel_w = static_cast<int32_t>(weight_dims[2]);
  a->out_c = static_cast<int32_t>(weight_dims[layout == OutChannelsAt::kFirst ? 0 : 3]);
  a->weight_d0 = static_cast<int32_t>(weight_dims[0]);
  a->weight_d3 = static_cast<int32_t>(weight_dims[3]);
  if (a->n == 0 || a->in_h == 0 || a->in_w == 0 || a->in_c == 0 || a->kernel_h == 0 || a->kernel_w == 0 ||
      a->out_c == 0) {
    return "empty input or weight";
  }
  if (!vector_of(a->bias, a->s16 ? ScalarType::Long : ScalarType::Int, a->out_c) ||
      !vector_of(a->multipliers, ScalarType::Int, a->out_c) || !vector_of(a->shifts, ScalarType::Int, a->out_c)) {
    return "bias (int32; int64 for int16), multipliers and shifts (int32): vectors of the output channels";
  }
  const int32_t* multipliers = a->multipliers->const_data_ptr<int32_t>();
  const int32_t* shifts = a->shifts->const_data_ptr<int32_t>();
  for (int32_t c = 0; c < a->out_c; ++c) {
    // Scales below 1, as cortex_m_util.h valid_int8.
    if (multipliers[c] <= 0 || shifts[c] < -31 || shifts[c] > 0) {
      return "multiplier or shift out of range";
    }
  }
  a->out_h = output_extent(a->in_h, a->kernel_h, a->stride_h, a->padding_h, a->dilation_h);
  a->out_w = output_extent(a->in_w, a->kernel_w, a->stride_w, a->padding_w, a->dilation_w);
  if (a->out_h == 0 || a->out_w == 0) {
    return "the kernel does not fit the padded input";
  }
  const int32_t sizes[4] = {a->n, a->out_h, a->out_w, a->out_c};
  if (!resize_out(*a->out, sizes, 4)) {
    return "bad output shape";
  }
  if (!has_data(*a->input) || !has_data(*a->weight) || !has_data(*a->out)) {
    return "tensor without data";
  }
  return nullptr;
}

const char* pool2d_args(Span<EValue*> stack, Pool2dArgs* a, bool with_scratch) {
  const size_t out_at = with_scratch ? 7 : 6;
  if (stack.size() != out_at + 2) {  // the arguments, out, and out again as the returned value
    return "wrong number of arguments";
  }
  if (with_scratch && !int32_value(stack, 6, &a->scratch_bytes)) {
    return "bad scratch_bytes";
  }
  a->input = tensor_arg(stack, 0);
  a->out = tensor_arg(stack, out_at);
  if (!a->input || !a->out || !pair(stack, 1, 1, &a->kernel_h, &a->kernel_w) ||
      !pair(stack, 2, 1, &a->stride_h, &a->stride_w) || !pair(stack, 3, 0, &a->padding_h, &a->padding_w) ||
      !int32_value(stack, 4, &a->activation_min) || !int32_value(stack, 5, &a->activation_max)) {
    return "bad arguments (kernel size and stride >= 1, padding >= 0, each at most 65535)";
  }
  if (2 * a->padding_h > a->kernel_h || 2 * a->padding_w > a->kernel_w) {
    return "padding beyond half the kernel (a window of padding only)";
  }
  a->s16 = a->input->scalar_type() == ScalarType::Short;
  if ((a->input->scalar_type() != ScalarType::Char && !a->s16) || a->out->scalar_type() != a->input->scalar_type()) {
    return "int8 or int16 input and output of one type only";
  }
  const int32_t lowest = a->s16 ? -INT16_MAX : INT8_MIN;  // cortex_m_util.h activation_min
  const int32_t highest = a->s16 ? INT16_MAX : INT8_MAX;
  if (a->activation_min < lowest || a->activation_max > highest || a->activation_min > a->activation_max) {
    return "bad activation range";
  }
  if (a->input->dim() != 4 || a->out->dim() != 4) {
    return "4-D NHWC input and output only";
  }
  for (ssize_t d = 0; d < 4; ++d) {
    if (a->input->size(d) > UINT16_MAX) {
      return "a dimension beyond 65535";
    }
  }
  if (!contiguous(*a->input) || !contiguous(*a->out)) {
    return "contiguous tensors only";
  }
  a->n = static_cast<int32_t>(a->input->size(0));
  a->in_h = static_cast<int32_t>(a->input->size(1));
  a->in_w = static_cast<int32_t>(a->input->size(2));
  a->c = static_cast<int32_t>(a->input->size(3));
  if (a->n == 0 || a->in_h == 0 || a->in_w == 0 || a->c == 0) {
    return "empty input";
  }
  a->out_h = output_extent(a->in_h, a->kernel_h, a->stride_h, a->padding_h, 1);
  a->out_w = output_extent(a->in_w, a->kernel_w, a->stride_w, a->padding_w, 1);
  if (a->out_h == 0 || a->out_w == 0) {
    return "the kernel does not fit the padded input";
  }
  const int32_t sizes[4] = {a->n, a->out_h, a->out_w, a->c};
  if (!resize_out(*a->out, sizes, 4)) {
    return "bad output shape";
  }
  if (!has_data(*a->input) || !has_data(*a->out)) {
    return "tensor without data";
  }
  return nullptr;
}

bool scratch_buffer(KernelRuntimeContext& ctx, int32_t bytes, void** buffer) {
  *buffer = nullptr;
  if (bytes < 0) {
    return false;
  }
  if (bytes == 0) {
    return true;
  }
  auto memory = ctx.allocate_temp(static_cast<size_t>(bytes), 16);
  if (!memory.ok()) {
    return false;
  }
  *buffer = memory.get();
  return true;
}

bool recorded_scratch(
    KernelRuntimeContext& ctx, const char* op, int32_t recorded, int32_t needed, void** buffer, int32_t* size) {
#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
  constexpr bool kRunsRecordedPath = true;
#else
  constexpr bool kRunsRecordedPath = false;
#endif
  if (recorded < 0 || (kRunsRecordedPath && recorded < needed)) {
    ET_LOG(
        Error,
        "%s: the program records %d scratch bytes for CMSIS-NN, this image's call needs %d (a program compiled for "
        "another CPU, or corrupt)",
        op, static_cast<int>(recorded), static_cast<int>(needed));
    ctx.fail(Error::InvalidArgument);
    return false;
  }
  *size = recorded > needed ? recorded : needed;
  if (!scratch_buffer(ctx, *size, buffer)) {
    ET_LOG(Error, "%s: no temporary memory for a %d byte scratch buffer", op, static_cast<int>(*size));
    ctx.fail(Error::MemoryAllocationFailed);
    return false;
  }
  return true;
}

} // namespace cortex_m
} // namespace kernels
} // namespace etarm
