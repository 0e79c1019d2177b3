// quantized_decomposed::quantize_per_tensor.out(Tensor input, float scale, int zero_point,
//     int quant_min, int quant_max, ScalarType dtype, *, Tensor(a!) out)
// q = clamp(round_half_even(x * (1 / scale)) + zero_point, quant_min, quant_max), computed
// in float like torch's reference decomposition.
#include <cmath>

#include "kernels/portable/kernel_util.h"

namespace etarm {
namespace kernels {
namespace {

template <typename Q>
void quantize(const float* x, Q* q, ssize_t n, float inv_scale, int64_t zp, int64_t qmin, int64_t qmax) {
  for (ssize_t i = 0; i < n; ++i) {
    float v = std::nearbyint(x[i] * inv_scale) + static_cast<float>(zp);
    v = v < static_cast<float>(qmin) ? static_cast<float>(qmin) : v;
    v = v > static_cast<float>(qmax) ? static_cast<float>(qmax) : v;
    q[i] = static_cast<Q>(v);
  }
}

void quantize_per_tensor_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  const Tensor* in = tensor_arg(stack, 0);
  const Tensor* out = tensor_arg(stack, 6);
  double scale;
  int64_t zp, qmin, qmax, dtype;
  ETARM_KERNEL_CHECK(
      ctx,
      stack.size() == 8 && in && out && scalar_arg(stack, 1, &scale) && int_arg(stack, 2, &zp) &&
          int_arg(stack, 3, &qmin) && int_arg(stack, 4, &qmax) && int_arg(stack, 5, &dtype),
      "quantize_per_tensor.out: bad arguments");
  ETARM_KERNEL_CHECK(
      ctx, in->scalar_type() == ScalarType::Float && static_cast<int64_t>(out->scalar_type()) == dtype,
      "quantize_per_tensor.out: float input and an output of the given dtype expected");
  ETARM_KERNEL_CHECK(ctx, scale > 0.0 && qmin <= qmax, "quantize_per_tensor.out: bad quantization parameters");
  ETARM_KERNEL_CHECK(ctx, executorch::runtime::tensors_have_same_dim_order(*in, *out), "quantize_per_tensor.out: dim orders differ");
  ETARM_KERNEL_CHECK(
      ctx, out->dim() == in->dim() && resize_out(*out, in->sizes().data(), in->dim()),
      "quantize_per_tensor.out: bad output shape");
  ETARM_KERNEL_CHECK(ctx, has_data(*in) && has_data(*out), "quantize_per_tensor.out: tensor without data");
  const float inv_scale = static_cast<float>(1.0 / scale);
  const float* x = in->const_data_ptr<float>();
  const ssize_t n = in->numel();
  switch (out->scalar_type()) {
    case ScalarType::Char:
      ETARM_KERNEL_CHECK(ctx, qmin >= INT8_MIN && qmax <= INT8_MAX, "quantize_per_tensor.out: range exceeds int8");
      quantize(x, out->mutable_data_ptr<int8_t>(), n, inv_scale, zp, qmin, qmax);
      break;
    case ScalarType::Byte:
      ETARM_KERNEL_CHECK(ctx, qmin >= 0 && qmax <= UINT8_MAX, "quantize_per_tensor.out: range exceeds uint8");
      quantize(x, out->mutable_data_ptr<uint8_t>(), n, inv_scale, zp, qmin, qmax);
      break;
    case ScalarType::Short:
      ETARM_KERNEL_CHECK(ctx, qmin >= INT16_MIN && qmax <= INT16_MAX, "quantize_per_tensor.out: range exceeds int16");
      quantize(x, out->mutable_data_ptr<int16_t>(), n, inv_scale, zp, qmin, qmax);
      break;
    default:
      ETARM_KERNEL_CHECK(ctx, false, "quantize_per_tensor.out: unsupported output dtype");
  }
}

} // namespace
ETARM_KERNEL(quantized_decomposed, quantize_per_tensor, out, quantize_per_tensor_out)
} // namespace kernels
} // namespace etarm
