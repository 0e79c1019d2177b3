// quantized_decomposed::dequantize_per_channel.out(Tensor input, Tensor scales,
//     Tensor? zero_points, int axis, int quant_min, int quant_max, ScalarType dtype, *,
//     ScalarType? out_dtype=None, Tensor(a!) out)
// x[..., c, ...] = (q - zero_points[c]) * scales[c] along `axis`, in float.
#include "kernels/portable/kernel_util.h"

namespace etarm {
namespace kernels {
namespace {

// Element `i` of a float / double / integer tensor, as float.
bool element(const Tensor& t, int64_t i, float* v) {
  switch (t.scalar_type()) {
    case ScalarType::Float:
      *v = t.const_data_ptr<float>()[i];
      return true;
    case ScalarType::Double:
      *v = static_cast<float>(t.const_data_ptr<double>()[i]);
      return true;
    case ScalarType::Long:
      *v = static_cast<float>(t.const_data_ptr<int64_t>()[i]);
      return true;
    case ScalarType::Int:
      *v = static_cast<float>(t.const_data_ptr<int32_t>()[i]);
      return true;
    default:
      return false;
  }
}

template <typename Q>
void dequantize(
    const Q* q, float* x, int64_t outer, int64_t channels, int64_t inner, const Tensor& scales, const Tensor* zps) {
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t c = 0; c < channels; ++c) {
      float scale = 0.0f;
      float zp = 0.0f;
      element(scales, c, &scale);
      if (zps != nullptr) {
        element(*zps, c, &zp);
      }
      const size_t base = static_cast<size_t>((o * channels + c) * inner);
      for (int64_t i = 0; i < inner; ++i) {
        x[base + i] = (static_cast<float>(q[base + i]) - zp) * scale;
      }
    }
  }
}

void dequantize_per_channel_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  const Tensor* in = tensor_arg(stack, 0);
  const Tensor* scales = tensor_arg(stack, 1);
  const Tensor* zps = tensor_arg(stack, 2);
  const Tensor* out = tensor_arg(stack, 8);
  int64_t axis, qmin, qmax, dtype, out_dtype = static_cast<int64_t>(ScalarType::Float);
  ETARM_KERNEL_CHECK(
      ctx,
      stack.size() == 10 && in && scales && out && (zps || is_none_arg(stack, 2)) && int_arg(stack, 3, &axis) &&
          int_arg(stack, 4, &qmin) && int_arg(stack, 5, &qmax) && int_arg(stack, 6, &dtype) &&
          (is_none_arg(stack, 7) || int_arg(stack, 7, &out_dtype)),
      "dequantize_per_channel.out: bad arguments");
  ETARM_KERNEL_CHECK(
      ctx,
      static_cast<int64_t>(in->scalar_type()) == dtype && out->scalar_type() == ScalarType::Float &&
          out_dtype == static_cast<int64_t>(ScalarType::Float),
      "dequantize_per_channel.out: float output of an input of the given dtype expected");
  ETARM_KERNEL_CHECK(ctx, wrap_dim(axis, in->dim(), &axis) && in->dim() > 0, "dequantize_per_channel.out: bad axis");
  ETARM_KERNEL_CHECK(ctx, contiguous(*in) && contiguous(*out), "dequantize_per_channel.out: contiguous only");
  const int64_t channels = in->size(axis);
  ETARM_KERNEL_CHECK(
      ctx,
      scales->numel() == channels && (!zps || zps->numel() == channels) && channels <= 65536 && has_data(*scales) &&
          (!zps || has_data(*zps)),
      "dequantize_per_channel.out: scales / zero points do not match the channels");
  ETARM_KERNEL_CHECK(
      ctx, out->dim() == in->dim() && resize_out(*out, in->sizes().data(), in->dim()),
      "dequantize_per_channel.out: bad output shape");
  ETARM_KERNEL_CHECK(ctx, has_data(*in) && has_data(*out), "dequantize_per_channel.out: tensor without data");
  float probe;
  ETARM_KERNEL_CHECK(
      ctx, channels == 0 || (element(*scales, 0, &probe) && (!zps || element(*zps, 0, &probe))),
      "dequantize_per_channel.out: unsupported scales / zero point dtype");
  int64_t inner = 1;
  for (ssize_t d = axis + 1; d < in->dim(); ++d) {
    inner *= in->size(d);
  }
  const int64_t outer = channels == 0 ? 0 : in->numel() / (channels * inner);
  float* x = out->mutable_data_ptr<float>();
  const bool supported = visit_quantized_int_type(in->scalar_type(), [&](auto tag) {
    dequantize(in->const_data_ptr<decltype(tag)>(), x, outer, channels, inner, *scales, zps);
  });
  ETARM_KERNEL_CHECK(ctx, supported, "dequantize_per_channel.out: unsupported input dtype");
}

} // namespace
ETARM_KERNEL(quantized_decomposed, dequantize_per_channel, out, dequantize_per_channel_out)
} // namespace kernels
} // namespace etarm
