// aten::mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out)
#include "kernels/portable/kernel_util.h"

namespace etarm {
namespace kernels {
namespace {

void mm_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  const Tensor* a = tensor_arg(stack, 0);
  const Tensor* b = tensor_arg(stack, 1);
  const Tensor* out = tensor_arg(stack, 2);
  ETARM_KERNEL_CHECK(ctx, stack.size() == 4 && a && b && out, "mm.out: bad arguments");
  ETARM_KERNEL_CHECK(
      ctx,
      a->scalar_type() == ScalarType::Float && b->scalar_type() == ScalarType::Float &&
          out->scalar_type() == ScalarType::Float,
      "mm.out: float only");
  ETARM_KERNEL_CHECK(
      ctx, a->dim() == 2 && b->dim() == 2 && out->dim() == 2 && a->size(1) == b->size(0), "mm.out: bad shapes");
  ETARM_KERNEL_CHECK(ctx, contiguous(*a) && contiguous(*b) && contiguous(*out), "mm.out: contiguous only");
  const int32_t m = a->size(0);
  const int32_t k = a->size(1);
  const int32_t n = b->size(1);
  const int32_t sizes[2] = {m, n};
  ETARM_KERNEL_CHECK(ctx, resize_out(*out, sizes, 2), "mm.out: bad output shape");
  ETARM_KERNEL_CHECK(ctx, has_data(*a) && has_data(*b) && has_data(*out), "mm.out: tensor without data");
  matmul_float(a->const_data_ptr<float>(), b->const_data_ptr<float>(), out->mutable_data_ptr<float>(), m, k, n);
}

} // namespace
ETARM_KERNEL(aten, mm, out, mm_out)
} // namespace kernels
} // namespace etarm
