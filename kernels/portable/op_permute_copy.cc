// aten::permute_copy.out(Tensor self, int[] dims, *, Tensor(a!) out)
#include "kernels/portable/kernel_util.h"

namespace etarm {
namespace kernels {
namespace {

void permute_copy_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  const Tensor* in = tensor_arg(stack, 0);
  const Tensor* out = tensor_arg(stack, 2);
  ArrayRef<int64_t> dims;
  ETARM_KERNEL_CHECK(ctx, stack.size() == 4 && in && out && int_list_arg(stack, 1, &dims), "permute_copy.out: bad arguments");
  const size_t rank = static_cast<size_t>(in->dim());
  ETARM_KERNEL_CHECK(
      ctx, dims.size() == rank && out->dim() == in->dim() && in->scalar_type() == out->scalar_type(),
      "permute_copy.out: bad shapes or dtypes");
  ETARM_KERNEL_CHECK(ctx, contiguous(*in) && contiguous(*out), "permute_copy.out: contiguous only");
  int32_t sizes[kMaxDim];
  int32_t src_strides[kMaxDim];
  int32_t dst_strides[kMaxDim];
  bool seen[kMaxDim] = {};
  for (size_t i = 0; i < rank; ++i) {
    int64_t d;
    ETARM_KERNEL_CHECK(ctx, wrap_dim(dims[i], rank, &d) && !seen[d], "permute_copy.out: dims are not a permutation");
    seen[d] = true;
    sizes[i] = in->size(d);
    src_strides[i] = in->strides()[d];
  }
  ETARM_KERNEL_CHECK(ctx, resize_out(*out, sizes, rank), "permute_copy.out: bad output shape");
  ETARM_KERNEL_CHECK(ctx, has_data(*in) && has_data(*out), "permute_copy.out: tensor without data");
  for (size_t i = 0; i < rank; ++i) {
    dst_strides[i] = out->strides()[i];
  }
  strided_copy(
      in->const_data_ptr(), out->mutable_data_ptr(), in->element_size(), sizes, rank, src_strides, dst_strides,
      in->numel());
}

} // namespace
ETARM_KERNEL(aten, permute_copy, out, permute_copy_out)
} // namespace kernels
} // namespace etarm
