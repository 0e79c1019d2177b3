// aten::cat.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out)
#include <cstring>

#include "kernels/portable/kernel_util.h"

namespace etarm {
namespace kernels {
namespace {

// torch.cat skips 1-D empty tensors whatever the other tensors' shapes.
bool skipped(const Tensor& t) {
  return t.dim() == 1 && t.numel() == 0;
}

void cat_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  const Tensor* out = tensor_arg(stack, 2);
  int64_t dim;
  ETARM_KERNEL_CHECK(
      ctx, stack.size() == 4 && out && stack[0]->isTensorList() && int_arg(stack, 1, &dim), "cat.out: bad arguments");
  auto list = stack[0]->tryToTensorList();
  ETARM_KERNEL_CHECK(ctx, list.ok() && list->size() > 0, "cat.out: bad tensor list");
  const ArrayRef<Tensor> tensors = *list;
  const ssize_t rank = out->dim();
  ETARM_KERNEL_CHECK(ctx, wrap_dim(dim, rank, &dim) && rank > 0, "cat.out: dim out of range");
  ETARM_KERNEL_CHECK(ctx, contiguous(*out), "cat.out: contiguous only");
  int32_t sizes[kMaxDim];
  bool first = true;
  for (const Tensor& t : tensors) {
    if (skipped(t)) {
      continue;
    }
    ETARM_KERNEL_CHECK(
        ctx, t.dim() == rank && t.scalar_type() == out->scalar_type() && contiguous(t) && has_data(t),
        "cat.out: tensors differ in rank or dtype");
    for (ssize_t d = 0; d < rank; ++d) {
      if (first) {
        sizes[d] = t.size(d);
      } else if (d == dim) {
        ETARM_KERNEL_CHECK(ctx, sizes[d] <= INT32_MAX - t.size(d), "cat.out: size overflows");
        sizes[d] += t.size(d);
      } else {
        ETARM_KERNEL_CHECK(ctx, sizes[d] == t.size(d), "cat.out: sizes differ outside dim");
      }
    }
    first = false;
  }
  if (first) { // only skipped tensors
    return;
  }
  ETARM_KERNEL_CHECK(ctx, resize_out(*out, sizes, rank), "cat.out: bad output shape");
  ETARM_KERNEL_CHECK(ctx, has_data(*out), "cat.out: tensor without data");
  size_t outer = 1;
  for (ssize_t d = 0; d < dim; ++d) {
    outer *= sizes[d];
  }
  size_t inner_bytes = out->element_size();
  for (ssize_t d = dim + 1; d < rank; ++d) {
    inner_bytes *= sizes[d];
  }
  auto* dst = static_cast<uint8_t*>(out->mutable_data_ptr());
  for (size_t o = 0; o < outer; ++o) {
    for (const Tensor& t : tensors) {
      if (skipped(t)) {
        continue;
      }
      const size_t chunk = inner_bytes * t.size(dim);
      std::memmove(dst, static_cast<const uint8_t*>(t.const_data_ptr()) + o * chunk, chunk); // may alias if corrupt
      dst += chunk;
    }
  }
}

} // namespace
ETARM_KERNEL(aten, cat, out, cat_out)
} // namespace kernels
} // namespace etarm
