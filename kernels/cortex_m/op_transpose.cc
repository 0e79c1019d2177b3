// cortex_m::transpose.out(Tensor self, int[] perm, *, Tensor(a!) out) -> Tensor(a!)
//
// out = self.permute(perm) for a contiguous int8 or int16 (a16w8) tensor of rank 4 or less: the values move unchanged
// (the result keeps the input's quantization). Written in the project: the CMSIS-NN snapshot has no arm_transpose_s8.
#include "kernels/cortex_m/cortex_m_util.h"

namespace etarm {
namespace kernels {
namespace {

constexpr size_t kLargestRank = 4;

// Writes the output in order; the innermost loop strides through the input.
template <typename T>
void permute(const T* src, T* dst, const int32_t (&sizes)[kLargestRank], const int32_t (&step)[kLargestRank]) {
  for (int32_t a = 0; a < sizes[0]; ++a) {
    for (int32_t b = 0; b < sizes[1]; ++b) {
      for (int32_t c = 0; c < sizes[2]; ++c) {
        const T* row = src + a * step[0] + b * step[1] + c * step[2];
        for (int32_t d = 0; d < sizes[3]; ++d) {
          *dst++ = row[d * step[3]];
        }
      }
    }
  }
}

void transpose_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  const Tensor* in = tensor_arg(stack, 0);
  const Tensor* out = tensor_arg(stack, 2);
  ArrayRef<int64_t> perm;
  ETARM_KERNEL_CHECK(
      ctx, stack.size() == 4 && in && out && int_list_arg(stack, 1, &perm), "cortex_m::transpose.out: bad arguments");
  const bool s16 = in->scalar_type() == ScalarType::Short;
  ETARM_KERNEL_CHECK(
      ctx, (in->scalar_type() == ScalarType::Char || s16) && out->scalar_type() == in->scalar_type(),
      "cortex_m::transpose.out: int8 or int16 tensors of one type only");
  const size_t rank = static_cast<size_t>(in->dim());
  ETARM_KERNEL_CHECK(
      ctx, rank <= kLargestRank && perm.size() == rank && out->dim() == in->dim(),
      "cortex_m::transpose.out: rank above 4, or perm / out of another rank");
  ETARM_KERNEL_CHECK(ctx, contiguous(*in) && contiguous(*out), "cortex_m::transpose.out: contiguous tensors only");
  // The output padded to rank 4 with leading dims of size 1; `step` is how far the input moves per output index.
  int32_t sizes[kLargestRank] = {1, 1, 1, 1};
  int32_t step[kLargestRank] = {0, 0, 0, 0};
  bool seen[kLargestRank] = {};
  const size_t pad = kLargestRank - rank;
  for (size_t i = 0; i < rank; ++i) {
    const int64_t d = perm[i];
    ETARM_KERNEL_CHECK(
        ctx, d >= 0 && static_cast<size_t>(d) < rank && !seen[d], "cortex_m::transpose.out: perm is not a permutation");
    seen[d] = true;
    sizes[pad + i] = in->size(d);
    step[pad + i] = in->strides()[d];
  }
  ETARM_KERNEL_CHECK(ctx, resize_out(*out, sizes + pad, rank), "cortex_m::transpose.out: bad output shape");
  ETARM_KERNEL_CHECK(ctx, has_data(*in) && has_data(*out), "cortex_m::transpose.out: tensor without data");
  if (s16) {
    permute(in->const_data_ptr<int16_t>(), out->mutable_data_ptr<int16_t>(), sizes, step);
  } else {
    permute(in->const_data_ptr<int8_t>(), out->mutable_data_ptr<int8_t>(), sizes, step);
  }
}

} // namespace
ETARM_KERNEL(cortex_m, transpose, out, transpose_out)
} // namespace kernels
} // namespace etarm
