// quantized_decomposed::dequantize_per_tensor.out(Tensor input, float scale,
//     int zero_point, int quant_min, int quant_max, ScalarType dtype, *,
//     ScalarType? out_dtype=None, Tensor(a!) out)
// x = (q - zero_point) * scale, in float like torch's reference decomposition.
#include "kernels/portable/kernel_util.h"

namespace etarm {
namespace kernels {
namespace {

template <typename Q>
void dequantize(const Q* q, float* x, ssize_t n, float scale, float zp) {
  for (ssize_t i = 0; i < n; ++i) {
    x[i] = (static_cast<float>(q[i]) - zp) * scale;
  }
}

void dequantize_per_tensor_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  const Tensor* in = tensor_arg(stack, 0);
  const Tensor* out = tensor_arg(stack, 7);
  double scale;
  int64_t zp, qmin, qmax, dtype, out_dtype = static_cast<int64_t>(ScalarType::Float);
  ETARM_KERNEL_CHECK(
      ctx,
      stack.size() == 9 && in && out && scalar_arg(stack, 1, &scale) && int_arg(stack, 2, &zp) &&
          int_arg(stack, 3, &qmin) && int_arg(stack, 4, &qmax) && int_arg(stack, 5, &dtype) &&
          (is_none_arg(stack, 6) || int_arg(stack, 6, &out_dtype)),
      "dequantize_per_tensor.out: bad arguments");
  ETARM_KERNEL_CHECK(
      ctx,
      static_cast<int64_t>(in->scalar_type()) == dtype && out->scalar_type() == ScalarType::Float &&
          out_dtype == static_cast<int64_t>(ScalarType::Float),
      "dequantize_per_tensor.out: float output of an input of the given dtype expected");
  ETARM_KERNEL_CHECK(ctx, executorch::runtime::tensors_have_same_dim_order(*in, *out), "dequantize_per_tensor.out: dim orders differ");
  ETARM_KERNEL_CHECK(
      ctx, out->dim() == in->dim() && resize_out(*out, in->sizes().data(), in->dim()),
      "dequantize_per_tensor.out: bad output shape");
  ETARM_KERNEL_CHECK(ctx, has_data(*in) && has_data(*out), "dequantize_per_tensor.out: tensor without data");
  float* x = out->mutable_data_ptr<float>();
  const ssize_t n = in->numel();
  const float s = static_cast<float>(scale);
  const float z = static_cast<float>(zp);
  const bool supported = visit_quantized_int_type(in->scalar_type(), [&](auto tag) {
    dequantize(in->const_data_ptr<decltype(tag)>(), x, n, s, z);
  });
  ETARM_KERNEL_CHECK(ctx, supported, "dequantize_per_tensor.out: unsupported input dtype");
}

} // namespace
ETARM_KERNEL(quantized_decomposed, dequantize_per_tensor, out, dequantize_per_tensor_out)
} // namespace kernels
} // namespace etarm
