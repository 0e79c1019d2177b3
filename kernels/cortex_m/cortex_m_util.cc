#include "kernels/cortex_m/cortex_m_util.h"

#include <limits>

// Helium (what CMSIS-NN's ARM_MATH_MVEI comes from): the int8 minimum/maximum compare 16 lanes at a time.
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#include <arm_mve.h>
#define ETARM_CORTEX_M_MVE 1
#endif

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

// An operand's zero point, multiplier and shift for quantized_extremum_out: its scale over the output's
// may be 1 or more (a left shift), up to 2^29 as TOSA RESCALE allows.
bool valid_extremum_operand(const Requantize& r) {
  return r.zero_point >= INT8_MIN && r.zero_point <= INT8_MAX && r.multiplier > 0 && r.shift >= -31 && r.shift <= 29;
}

bool is_identity(const Requantize& r, int32_t output_zero_point) {
  return r.multiplier == (1 << 30) && r.shift == 1 && r.zero_point == output_zero_point;
}

// round_half_up((q - zero_point) * multiplier * 2^(shift - 31)): |q - zp| < 2^16 and multiplier < 2^31,
// so the product fits int64 and the result int64 for every shift up to 29.
int64_t rescale_operand(int32_t q, const Requantize& r) {
  const int32_t right = 31 - r.shift;
  return ((static_cast<int64_t>(q) - r.zero_point) * r.multiplier + (int64_t{1} << (right - 1))) >> right;
}

// o = min or max (largest) of x and y, n values each.
template <typename T>
void compare_block(const T* x, const T* y, T* o, int32_t n, bool largest) {
  for (int32_t j = 0; j < n; ++j) {
    o[j] = largest ? (x[j] > y[j] ? x[j] : y[j]) : (x[j] < y[j] ? x[j] : y[j]);
  }
}

#if defined(ETARM_CORTEX_M_MVE)
template <>
void compare_block<int8_t>(const int8_t* x, const int8_t* y, int8_t* o, int32_t n, bool largest) {
  for (int32_t j = 0; j < n; j += 16) {
    const mve_pred16_t lanes = vctp8q(static_cast<uint32_t>(n - j));  // the tail's lanes only
    const int8x16_t a = vldrbq_z_s8(x + j, lanes);
    const int8x16_t b = vldrbq_z_s8(y + j, lanes);
    vstrbq_p_s8(o + j, largest ? vmaxq_s8(a, b) : vminq_s8(a, b), lanes);
  }
}
#endif

// The extremum of every block of the broadcast output, int8 or int16 (saturating to activation_min<T>()).
template <typename T>
void extremum_blocks(
    const Tensor& a, const Tensor& b, const Tensor& out, const BroadcastBlocks& blocks, const Requantize& ra,
    const Requantize& rb, int32_t zp_out, bool largest) {
  const T* pa = a.const_data_ptr<T>();
  const T* pb = b.const_data_ptr<T>();
  T* po = out.mutable_data_ptr<T>();
  const bool compare_as_is = is_identity(ra, zp_out) && is_identity(rb, zp_out);
  const int64_t lowest = activation_min<T>(), highest = std::numeric_limits<T>::max();
  BroadcastWalker w = blocks.walker();
  for (ssize_t i = 0; i < blocks.count; ++i, w.next()) {
    const T* x = pa + w.a();
    const T* y = pb + w.b();
    T* o = po + i * blocks.length;
    if (compare_as_is) {
      compare_block(x, y, o, blocks.length, largest);
      continue;
    }
    for (int32_t j = 0; j < blocks.length; ++j) {
      const int64_t u = rescale_operand(x[j], ra);
      const int64_t v = rescale_operand(y[j], rb);
      const int64_t q = (largest ? (u > v ? u : v) : (u < v ? u : v)) + zp_out;
      o[j] = static_cast<T>(q < lowest ? lowest : (q > highest ? highest : q));
    }
  }
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

bool valid_int16(const Requantize& r) {
  return r.zero_point == 0 && r.multiplier > 0 && r.shift >= -31 && r.shift <= 0;
}

const char* broadcast_blocks(
    const Tensor& a, const Tensor& b, const Tensor& out, ScalarType type, BroadcastBlocks* blocks) {
  if (a.scalar_type() != type || b.scalar_type() != type || out.scalar_type() != type) {
    return type == ScalarType::Char ? "int8 tensors only" : "tensors of one type (int8 or int16) only";
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

void quantized_extremum_out(KernelRuntimeContext& ctx, Span<EValue*> stack, bool largest, const char* op) {
  const Tensor* a = tensor_arg(stack, 0);
  const Tensor* b = tensor_arg(stack, 4);
  const Tensor* out = tensor_arg(stack, 9);
  Requantize ra, rb;
  int32_t zp_out;
  ETARM_KERNEL_CHECK(
      ctx,
      stack.size() == 11 && a && b && out && requantize_args(stack, 1, &ra) && requantize_args(stack, 5, &rb) &&
          int8_zero_point_arg(stack, 8, &zp_out),
      "%s: bad arguments", op);
  ETARM_KERNEL_CHECK(
      ctx, valid_extremum_operand(ra) && valid_extremum_operand(rb), "%s: zero point, multiplier or shift out of range",
      op);
  // int16 (a16w8): symmetric, every zero point 0.
  const bool s16 = a->scalar_type() == ScalarType::Short;
  ETARM_KERNEL_CHECK(
      ctx, !s16 || (ra.zero_point == 0 && rb.zero_point == 0 && zp_out == 0), "%s: int16 zero points must be 0", op);
  BroadcastBlocks blocks;
  const char* problem = broadcast_blocks(*a, *b, *out, s16 ? ScalarType::Short : ScalarType::Char, &blocks);
  ETARM_KERNEL_CHECK(ctx, problem == nullptr, "%s: %s", op, problem);
  if (s16) {
    extremum_blocks<int16_t>(*a, *b, *out, blocks, ra, rb, zp_out, largest);
  } else {
    extremum_blocks<int8_t>(*a, *b, *out, blocks, ra, rb, zp_out, largest);
  }
}

const char* additive_args(Span<EValue*> stack, AdditiveArgs* args) {
  args->a = tensor_arg(stack, 0);
  args->b = tensor_arg(stack, 4);
  args->out = tensor_arg(stack, 11);
  if (stack.size() != 13 || !args->a || !args->b || !args->out || !requantize_args(stack, 1, &args->r[0]) ||
      !requantize_args(stack, 5, &args->r[1]) || !requantize_args(stack, 8, &args->r[2])) {
    return "bad arguments";
  }
  args->s16 = args->a->scalar_type() == ScalarType::Short;
  const auto valid = args->s16 ? valid_int16 : valid_int8;
  if (!valid(args->r[0]) || !valid(args->r[1]) || !valid(args->r[2])) {
    return "zero point, multiplier or shift out of range";
  }
  return broadcast_blocks(
      *args->a, *args->b, *args->out, args->s16 ? ScalarType::Short : ScalarType::Char, &args->blocks);
}

} // namespace cortex_m
} // namespace kernels
} // namespace etarm
