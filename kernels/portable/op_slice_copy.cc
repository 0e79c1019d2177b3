// aten::slice_copy.Tensor_out(Tensor self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1, *,
//     Tensor(a!) out)
// Elements start, start + step, ... (< end) along dim, any dtype; start and end as Python slices take them (negative
// from the end, clamped to [0, size]).
#include "kernels/portable/kernel_util.h"

namespace etarm {
namespace kernels {
namespace {

int64_t slice_bound(Span<EValue*> stack, size_t i, int64_t absent, int64_t size, bool* ok) {
  if (is_none_arg(stack, i)) {
    return absent;
  }
  int64_t v;
  *ok = *ok && int_arg(stack, i, &v);
  if (!*ok) {
    return 0;
  }
  if (v < 0) {
    v += size;
  }
  return v < 0 ? 0 : (v > size ? size : v);
}

void slice_copy_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  const Tensor* in = tensor_arg(stack, 0);
  const Tensor* out = tensor_arg(stack, 5);
  int64_t dim, step;
  ETARM_KERNEL_CHECK(
      ctx, stack.size() == 7 && in && out && int_arg(stack, 1, &dim) && int_arg(stack, 4, &step),
      "slice_copy.Tensor_out: bad arguments");
  const size_t rank = static_cast<size_t>(in->dim());
  ETARM_KERNEL_CHECK(
      ctx, rank > 0 && wrap_dim(dim, static_cast<int64_t>(rank), &dim) && step > 0 && out->dim() == in->dim() &&
          in->scalar_type() == out->scalar_type(),
      "slice_copy.Tensor_out: bad dim, step, shapes or dtypes");
  ETARM_KERNEL_CHECK(ctx, contiguous(*in) && contiguous(*out), "slice_copy.Tensor_out: contiguous only");
  const int64_t size = in->size(dim);
  bool ok = true;
  const int64_t start = slice_bound(stack, 2, 0, size, &ok);
  const int64_t end = slice_bound(stack, 3, size, size, &ok);
  ETARM_KERNEL_CHECK(ctx, ok, "slice_copy.Tensor_out: start and end must be ints or None");
  const int64_t count = end > start ? (end - start + step - 1) / step : 0;
  int32_t sizes[kMaxDim];
  int32_t src_strides[kMaxDim];
  int32_t dst_strides[kMaxDim];
  for (size_t i = 0; i < rank; ++i) {
    sizes[i] = static_cast<int32_t>(static_cast<int64_t>(i) == dim ? count : in->size(i));
    src_strides[i] = static_cast<int32_t>(in->strides()[i] * (static_cast<int64_t>(i) == dim ? step : 1));
  }
  ETARM_KERNEL_CHECK(ctx, resize_out(*out, sizes, rank), "slice_copy.Tensor_out: bad output shape");
  ETARM_KERNEL_CHECK(ctx, has_data(*in) && has_data(*out), "slice_copy.Tensor_out: tensor without data");
  if (out->numel() == 0) {
    return;
  }
  for (size_t i = 0; i < rank; ++i) {
    dst_strides[i] = static_cast<int32_t>(out->strides()[i]);
  }
  const auto* src = static_cast<const unsigned char*>(in->const_data_ptr()) + start * in->strides()[dim] * in->element_size();
  strided_copy(src, out->mutable_data_ptr(), in->element_size(), sizes, rank, src_strides, dst_strides, out->numel());
}

} // namespace
ETARM_KERNEL(aten, slice_copy, Tensor_out, slice_copy_out)
} // namespace kernels
} // namespace etarm
