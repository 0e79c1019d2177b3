// aten::_softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out)
#include <cmath>

#include "kernels/portable/kernel_util.h"

namespace etarm {
namespace kernels {
namespace {

void softmax_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  const Tensor* in = tensor_arg(stack, 0);
  const Tensor* out = tensor_arg(stack, 3);
  int64_t dim;
  bool half_to_float;
  ETARM_KERNEL_CHECK(
      ctx, stack.size() == 5 && in && out && int_arg(stack, 1, &dim) && bool_arg(stack, 2, &half_to_float),
      "_softmax.out: bad arguments");
  ETARM_KERNEL_CHECK(
      ctx, !half_to_float && in->scalar_type() == ScalarType::Float && out->scalar_type() == ScalarType::Float,
      "_softmax.out: float only");
  ETARM_KERNEL_CHECK(ctx, wrap_dim(dim, in->dim(), &dim), "_softmax.out: dim out of range");
  ETARM_KERNEL_CHECK(ctx, contiguous(*in) && contiguous(*out), "_softmax.out: contiguous only");
  ETARM_KERNEL_CHECK(
      ctx, out->dim() == in->dim() && resize_out(*out, in->sizes().data(), in->dim()), "_softmax.out: bad output shape");
  ETARM_KERNEL_CHECK(ctx, has_data(*in) && has_data(*out), "_softmax.out: tensor without data");
  if (in->numel() == 0) {
    return;
  }
  const int64_t n = in->dim() == 0 ? 1 : in->size(dim);
  int64_t inner = 1;
  for (ssize_t d = dim + 1; d < in->dim(); ++d) {
    inner *= in->size(d);
  }
  const int64_t outer = in->numel() / (n * inner);
  const float* x = in->const_data_ptr<float>();
  float* y = out->mutable_data_ptr<float>();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t base = o * n * inner + i;
      float max = x[base];
      for (int64_t k = 1; k < n; ++k) {
        max = std::fmax(max, x[base + k * inner]);
      }
      float sum = 0.0f;
      for (int64_t k = 0; k < n; ++k) {
        const float e = std::exp(x[base + k * inner] - max);
        y[base + k * inner] = e;
        sum += e;
      }
      for (int64_t k = 0; k < n; ++k) {
        y[base + k * inner] /= sum;
      }
    }
  }
}

} // namespace
ETARM_KERNEL(aten, _softmax, out, softmax_out)
} // namespace kernels
} // namespace etarm
