// aten::permute_copy.out(Tensor self, int[] dims, *, Tensor(a!) out)
#include "kernels/portable/kernel_util.h"

namespace etarm {
namespace kernels {
namespace {

void permute_copy_out(KernelRuntimeContext& ctx, Span<EValue*> stack, const Tensor& in, const Tensor& out) {
  const size_t rank = static_cast<size_t>(in.dim());
  ArrayRef<int64_t> dims;
  ETARM_KERNEL_CHECK(ctx, int_list_arg(stack, 1, &dims) && dims.size() == rank, "permute_copy.out: bad dims");
  ETARM_KERNEL_CHECK(
      ctx, out.dim() == in.dim() && in.scalar_type() == out.scalar_type(), "permute_copy.out: bad shapes or dtypes");
  ETARM_KERNEL_CHECK(ctx, contiguous(in) && contiguous(out), "permute_copy.out: contiguous only");
  // out's index i reads in's along dims[i].
  int32_t sizes[kMaxDim];
  int32_t in_strides[kMaxDim];
  bool seen[kMaxDim] = {};
  for (size_t i = 0; i < rank; ++i) {
    int64_t d;
    ETARM_KERNEL_CHECK(ctx, wrap_dim(dims[i], rank, &d) && !seen[d], "permute_copy.out: dims are not a permutation");
    seen[d] = true;
    sizes[i] = in.size(d);
    in_strides[i] = in.strides()[d];
  }
  ETARM_KERNEL_CHECK(ctx, resize_out(out, sizes, rank), "permute_copy.out: bad output shape");
  ETARM_KERNEL_CHECK(ctx, has_data(in) && has_data(out), "permute_copy.out: tensor without data");
  strided_copy(in, out, in_strides);
}

} // namespace
ETARM_REGISTER_OUT_KERNEL("aten::permute_copy.out", permute_copy_out, 3)
} // namespace kernels
} // namespace etarm
