// cortex_m::pad.out(Tensor self, int[] before, int[] after, int value, *, Tensor(a!) out) -> Tensor(a!)
//
// out = self with before[d] and after[d] elements of `value` added on each side of dim d (pads >= 0), for a contiguous
// int8 tensor of any rank the runtime holds: the values move unchanged (the result keeps the input's quantization;
// `value` is the pad value already quantized); int16 data (a16w8) likewise, the value within [-32767, 32767]. Written in
// the project: the CMSIS-NN snapshot has no arm_pad_s8.
// python/etarm/cortex_m/passes/quantized_pad_as_cortex_m.py.
#include <algorithm>
#include <cstring>

#include "kernels/cortex_m/cortex_m_util.h"

namespace etarm {
namespace kernels {
namespace {

constexpr const char* kName = "cortex_m::pad.out";

// Fills out (sizes: its shape) with `value`, then copies each innermost row of the input whole into it.
template <typename T>
void pad_values(const Tensor& in, ArrayRef<int64_t> before, T value, const int32_t* sizes, Tensor& out) {
  T* dst = out.mutable_data_ptr<T>();
  std::fill(dst, dst + out.numel(), value);
  if (in.numel() == 0) {
    return;
  }
  const size_t rank = static_cast<size_t>(in.dim());
  const T* src = in.const_data_ptr<T>();
  const size_t row = static_cast<size_t>(in.size(rank - 1));
  int64_t index[kMaxDim] = {};
  for (ssize_t copied = 0; copied < in.numel(); copied += row, src += row) {
    int64_t offset = 0;
    for (size_t d = 0; d < rank; ++d) {
      offset = offset * sizes[d] + index[d] + before[d];
    }
    std::memcpy(dst + offset, src, row * sizeof(T));
    // The next row: the outer dims' indices count like an odometer.
    for (size_t d = rank - 1; d-- > 0;) {
      if (++index[d] < in.size(d)) {
        break;
      }
      index[d] = 0;
    }
  }
}

void pad_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  const Tensor* in = tensor_arg(stack, 0);
  Tensor* out = tensor_arg(stack, 4);
  ArrayRef<int64_t> before, after;
  int64_t value;
  ETARM_KERNEL_CHECK(
      ctx,
      stack.size() == 6 && in && out && int_list_arg(stack, 1, &before) && int_list_arg(stack, 2, &after) &&
          int_arg(stack, 3, &value),
      "%s: bad arguments", kName);
  const bool s16 = in->scalar_type() == ScalarType::Short;
  ETARM_KERNEL_CHECK(
      ctx, (s16 || in->scalar_type() == ScalarType::Char) && out->scalar_type() == in->scalar_type(),
      "%s: int8 (or int16) tensors of one type only", kName);
  ETARM_KERNEL_CHECK(
      ctx, s16 ? value >= -INT16_MAX && value <= INT16_MAX : value >= INT8_MIN && value <= INT8_MAX,
      "%s: value beyond int8 (int16: [-32767, 32767])", kName);
  const size_t rank = static_cast<size_t>(in->dim());
  ETARM_KERNEL_CHECK(
      ctx, rank >= 1 && rank <= kMaxDim && before.size() == rank && after.size() == rank && out->dim() == in->dim(),
      "%s: before, after and out must have the input's rank (1 to %d)", kName, static_cast<int>(kMaxDim));
  ETARM_KERNEL_CHECK(ctx, contiguous(*in) && contiguous(*out), "%s: contiguous tensors only", kName);
  int32_t sizes[kMaxDim];
  for (size_t d = 0; d < rank; ++d) {
    const int64_t size = in->size(d) + before[d] + after[d];
    ETARM_KERNEL_CHECK(
        ctx, before[d] >= 0 && after[d] >= 0 && size <= INT32_MAX, "%s: pads must be >= 0, sizes below 2^31", kName);
    sizes[d] = static_cast<int32_t>(size);
  }
  ETARM_KERNEL_CHECK(ctx, resize_out(*out, sizes, rank), "%s: bad output shape", kName);
  if (out->numel() == 0) {
    return;
  }
  ETARM_KERNEL_CHECK(ctx, has_data(*out) && (in->numel() == 0 || has_data(*in)), "%s: tensor without data", kName);
  if (s16) {
    pad_values<int16_t>(*in, before, static_cast<int16_t>(value), sizes, *out);
  } else {
    pad_values<int8_t>(*in, before, static_cast<int8_t>(value), sizes, *out);
  }
}

} // namespace
ETARM_KERNEL(cortex_m, pad, out, pad_out)
} // namespace kernels
} // namespace etarm
