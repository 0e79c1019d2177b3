#include "kernels/cortex_m/cortex_m_util.h"

namespace etarm {
namespace kernels {
namespace cortex_m {

namespace {

// The leading dims where a or b is broadcast (the trailing ones have the output's size in both).
size_t outer_dims(const Tensor& a, const Tensor& b, const int32_t* sizes, size_t dim) {
  auto size_of = [](const Tensor& t, size_t from_end) -> int32_t {
    return from_end < static_cast<size_t>(t.dim()) ? t.size(t.dim() - 1 - from_end) : 1;
  };
  size_t inner = 0;
  while (inner < dim && size_of(a, inner) == sizes[dim - 1 - inner] && size_of(b, inner) == sizes[dim - 1 - inner]) {
    ++inner;
  }
  return dim - inner;
}

bool int32_arg(Span<EValue*> stack, size_t i, int32_t* v) {
  int64_t value;
  if (!int_arg(stack, i, &value) || value < INT32_MIN || value > INT32_MAX) {
    return false;
  }
  *v = static_cast<int32_t>(value);
  return true;
}

} // namespace

bool requantize_args(Span<EValue*> stack, size_t first, Requantize* r) {
  return int32_arg(stack, first, &r->zero_point) && int32_arg(stack, first + 1, &r->multiplier) &&
      int32_arg(stack, first + 2, &r->shift);
}

bool int8_zero_point_arg(Span<EValue*> stack, size_t i, int32_t* zero_point) {
  return int32_arg(stack, i, zero_point) && *zero_point >= INT8_MIN && *zero_point <= INT8_MAX;
}

bool valid_int8(const Requantize& r) {
  return r.zero_point >= INT8_MIN && r.zero_point <= INT8_MAX && r.multiplier > 0 && r.shift >= -31 && r.shift <= 0;
}

const char* int8_broadcast_blocks(const Tensor& a, const Tensor& b, const Tensor& out, BroadcastBlocks* blocks) {
  if (a.scalar_type() != ScalarType::Char || b.scalar_type() != ScalarType::Char ||
      out.scalar_type() != ScalarType::Char) {
    return "int8 tensors only";
  }
  if (!contiguous(a) || !contiguous(b) || !contiguous(out)) {
    return "contiguous tensors only";
  }
  size_t dim;
  if (!broadcast_shape(a, b, blocks->sizes, &dim)) {
    return "shapes do not broadcast";
  }
  if (static_cast<size_t>(out.dim()) != dim || !resize_out(out, blocks->sizes, dim)) {
    return "bad output shape";
  }
  if (!has_data(a) || !has_data(b) || !has_data(out)) {
    return "tensor without data";
  }
  blocks->outer_dim = outer_dims(a, b, blocks->sizes, dim);
  blocks->length = 1;
  for (size_t d = blocks->outer_dim; d < dim; ++d) {
    blocks->length *= blocks->sizes[d];
  }
  blocks->count = blocks->length == 0 ? 0 : out.numel() / blocks->length;
  broadcast_strides(a, blocks->sizes, dim, blocks->a_strides);
  broadcast_strides(b, blocks->sizes, dim, blocks->b_strides);
  return nullptr;
}

} // namespace cortex_m
} // namespace kernels
} // namespace etarm
