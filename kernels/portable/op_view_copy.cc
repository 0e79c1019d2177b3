// aten::view_copy.out(Tensor self, SymInt[] size, *, Tensor(a!) out)
#include <cstring>

#include "kernels/portable/kernel_util.h"

namespace etarm {
namespace kernels {
namespace {

void view_copy_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  const Tensor* in = tensor_arg(stack, 0);
  const Tensor* out = tensor_arg(stack, 2);
  ArrayRef<int64_t> size;
  ETARM_KERNEL_CHECK(ctx, stack.size() == 4 && in && out && int_list_arg(stack, 1, &size), "view_copy.out: bad arguments");
  ETARM_KERNEL_CHECK(
      ctx, size.size() == static_cast<size_t>(out->dim()) && size.size() <= kMaxDim &&
          in->scalar_type() == out->scalar_type(),
      "view_copy.out: bad shapes or dtypes");
  ETARM_KERNEL_CHECK(ctx, contiguous(*in) && contiguous(*out), "view_copy.out: contiguous only");
  int32_t sizes[kMaxDim];
  int64_t known = 1;
  int infer = -1;
  for (size_t i = 0; i < size.size(); ++i) {
    if (size[i] == -1) {
      ETARM_KERNEL_CHECK(ctx, infer < 0, "view_copy.out: more than one -1");
      infer = static_cast<int>(i);
      continue;
    }
    ETARM_KERNEL_CHECK(ctx, size[i] >= 0 && size[i] <= INT32_MAX, "view_copy.out: bad size");
    sizes[i] = static_cast<int32_t>(size[i]);
    known *= size[i];
    ETARM_KERNEL_CHECK(ctx, known <= INT32_MAX, "view_copy.out: size overflows");
  }
  if (infer >= 0) {
    ETARM_KERNEL_CHECK(ctx, known > 0 && in->numel() % known == 0, "view_copy.out: cannot infer -1");
    sizes[infer] = static_cast<int32_t>(in->numel() / known);
    known *= sizes[infer];
  }
  ETARM_KERNEL_CHECK(ctx, known == in->numel(), "view_copy.out: element count changes");
  ETARM_KERNEL_CHECK(ctx, resize_out(*out, sizes, size.size()), "view_copy.out: bad output shape");
  ETARM_KERNEL_CHECK(ctx, has_data(*in) && has_data(*out), "view_copy.out: tensor without data");
  if (in->nbytes() > 0 && out->mutable_data_ptr() != in->const_data_ptr()) {
    std::memmove(out->mutable_data_ptr(), in->const_data_ptr(), in->nbytes());
  }
}

} // namespace
ETARM_KERNEL(aten, view_copy, out, view_copy_out)
} // namespace kernels
} // namespace etarm
