// aten::select_copy.int_out(Tensor self, int dim, SymInt index, *, Tensor(a!) out)
// The slice at `index` (negative: from the end) along dim, that dim removed; any dtype.
#include "kernels/portable/kernel_util.h"

namespace etarm {
namespace kernels {
namespace {

void select_copy_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  const Tensor* in = tensor_arg(stack, 0);
  const Tensor* out = tensor_arg(stack, 3);
  int64_t dim, index;
  ETARM_KERNEL_CHECK(
      ctx, stack.size() == 5 && in && out && int_arg(stack, 1, &dim) && int_arg(stack, 2, &index),
      "select_copy.int_out: bad arguments");
  const size_t rank = static_cast<size_t>(in->dim());
  ETARM_KERNEL_CHECK(
      ctx, rank > 0 && wrap_dim(dim, static_cast<int64_t>(rank), &dim) && out->dim() + 1 == in->dim() &&
          in->scalar_type() == out->scalar_type(),
      "select_copy.int_out: bad dim, shapes or dtypes");
  const int64_t size = in->size(dim);
  if (index < 0) {
    index += size;
  }
  ETARM_KERNEL_CHECK(ctx, index >= 0 && index < size, "select_copy.int_out: index out of range");
  ETARM_KERNEL_CHECK(ctx, contiguous(*in) && contiguous(*out), "select_copy.int_out: contiguous only");
  int32_t sizes[kMaxDim];
  int32_t src_strides[kMaxDim];
  int32_t dst_strides[kMaxDim];
  size_t kept = 0;
  for (size_t i = 0; i < rank; ++i) {
    if (static_cast<int64_t>(i) == dim) {
      continue;
    }
    sizes[kept] = static_cast<int32_t>(in->size(i));
    src_strides[kept] = static_cast<int32_t>(in->strides()[i]);
    ++kept;
  }
  ETARM_KERNEL_CHECK(ctx, resize_out(*out, sizes, kept), "select_copy.int_out: bad output shape");
  ETARM_KERNEL_CHECK(ctx, has_data(*in) && has_data(*out), "select_copy.int_out: tensor without data");
  if (out->numel() == 0) {
    return;
  }
  for (size_t i = 0; i < kept; ++i) {
    dst_strides[i] = static_cast<int32_t>(out->strides()[i]);
  }
  const auto* src = static_cast<const unsigned char*>(in->const_data_ptr()) + index * in->strides()[dim] * in->element_size();
  strided_copy(src, out->mutable_data_ptr(), in->element_size(), sizes, kept, src_strides, dst_strides, out->numel());
}

} // namespace
ETARM_KERNEL(aten, select_copy, int_out, select_copy_out)
} // namespace kernels
} // namespace etarm
