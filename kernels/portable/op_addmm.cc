// aten::addmm.out(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1,
//                 Tensor(a!) out): out = beta * self + alpha * (mat1 @ mat2)
#include "kernels/portable/kernel_util.h"

namespace etarm {
namespace kernels {
namespace {

void addmm_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  const Tensor* self = tensor_arg(stack, 0);
  const Tensor* a = tensor_arg(stack, 1);
  const Tensor* b = tensor_arg(stack, 2);
  const Tensor* out = tensor_arg(stack, 5);
  double beta;
  double alpha;
  ETARM_KERNEL_CHECK(
      ctx,
      stack.size() == 7 && self && a && b && out && scalar_arg(stack, 3, &beta) && scalar_arg(stack, 4, &alpha),
      "addmm.out: bad arguments");
  ETARM_KERNEL_CHECK(
      ctx,
      self->scalar_type() == ScalarType::Float && a->scalar_type() == ScalarType::Float &&
          b->scalar_type() == ScalarType::Float && out->scalar_type() == ScalarType::Float,
      "addmm.out: float only");
  ETARM_KERNEL_CHECK(
      ctx, a->dim() == 2 && b->dim() == 2 && out->dim() == 2 && self->dim() <= 2 && a->size(1) == b->size(0),
      "addmm.out: bad shapes");
  ETARM_KERNEL_CHECK(
      ctx, contiguous(*self) && contiguous(*a) && contiguous(*b) && contiguous(*out), "addmm.out: contiguous only");
  const int32_t m = a->size(0);
  const int32_t k = a->size(1);
  const int32_t n = b->size(1);
  const int32_t sizes[2] = {m, n};
  ETARM_KERNEL_CHECK(ctx, resize_out(*out, sizes, 2), "addmm.out: bad output shape");
  for (ssize_t d = 0; d < self->dim(); ++d) {
    const int32_t s = self->size(d);
    ETARM_KERNEL_CHECK(ctx, s == 1 || s == sizes[2 - self->dim() + d], "addmm.out: self does not broadcast");
  }
  ETARM_KERNEL_CHECK(
      ctx, has_data(*self) && has_data(*a) && has_data(*b) && has_data(*out), "addmm.out: tensor without data");
  int32_t ss[2];
  broadcast_strides(*self, sizes, 2, ss);
  const float* ps = self->const_data_ptr<float>();
  const float* pa = a->const_data_ptr<float>();
  const float* pb = b->const_data_ptr<float>();
  float* po = out->mutable_data_ptr<float>();
  const float fa = static_cast<float>(alpha);
  const float fb = static_cast<float>(beta);
  matmul_float(pa, pb, po, m, k, n);
  for (int32_t i = 0; i < m; ++i) {
    float* row = po + static_cast<size_t>(i) * n;
    for (int32_t j = 0; j < n; ++j) {
      const float bias = beta == 0.0 ? 0.0f : fb * ps[static_cast<size_t>(i) * ss[0] + static_cast<size_t>(j) * ss[1]];
      row[j] = bias + fa * row[j];
    }
  }
}

} // namespace
ETARM_KERNEL(aten, addmm, out, addmm_out)
} // namespace kernels
} // namespace etarm
