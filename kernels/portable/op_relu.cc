// aten::relu.out(Tensor self, *, Tensor(a!) out)
#include "kernels/portable/kernel_util.h"

namespace etarm {
namespace kernels {
namespace {

void relu_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  const Tensor* in = tensor_arg(stack, 0);
  const Tensor* out = tensor_arg(stack, 1);
  ETARM_KERNEL_CHECK(ctx, stack.size() == 3 && in && out, "relu.out: bad arguments");
  ETARM_KERNEL_CHECK(
      ctx, in->scalar_type() == ScalarType::Float && out->scalar_type() == ScalarType::Float, "relu.out: float only");
  ETARM_KERNEL_CHECK(
      ctx, out->dim() == in->dim() && resize_out(*out, in->sizes().data(), in->dim()), "relu.out: bad output shape");
  ETARM_KERNEL_CHECK(ctx, has_data(*in) && has_data(*out), "relu.out: tensor without data");
  ETARM_KERNEL_CHECK(ctx, executorch::runtime::tensors_have_same_dim_order(*in, *out), "relu.out: dim orders differ");
  const float* x = in->const_data_ptr<float>();
  float* y = out->mutable_data_ptr<float>();
  for (ssize_t i = 0; i < in->numel(); ++i) {
    y[i] = x[i] < 0.0f ? 0.0f : x[i]; // NaN stays NaN, as in torch
  }
}

} // namespace
ETARM_KERNEL(aten, relu, out, relu_out)
} // namespace kernels
} // namespace etarm
