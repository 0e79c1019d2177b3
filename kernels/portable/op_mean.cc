// aten::mean.out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None,
//                Tensor(a!) out)
#include "kernels/portable/kernel_util.h"

namespace etarm {
namespace kernels {
namespace {

void mean_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  const Tensor* in = tensor_arg(stack, 0);
  const Tensor* out = tensor_arg(stack, 4);
  bool keepdim;
  int64_t dtype = static_cast<int64_t>(ScalarType::Float);
  ETARM_KERNEL_CHECK(
      ctx,
      stack.size() == 6 && in && out && bool_arg(stack, 2, &keepdim) &&
          (is_none_arg(stack, 3) || int_arg(stack, 3, &dtype)),
      "mean.out: bad arguments");
  ETARM_KERNEL_CHECK(
      ctx,
      dtype == static_cast<int64_t>(ScalarType::Float) && in->scalar_type() == ScalarType::Float &&
          out->scalar_type() == ScalarType::Float,
      "mean.out: float only");
  ETARM_KERNEL_CHECK(ctx, contiguous(*in) && contiguous(*out), "mean.out: contiguous only");
  const ssize_t rank = in->dim();
  bool reduce[kMaxDim] = {};
  ArrayRef<int64_t> dims;
  if (int_list_arg(stack, 1, &dims) && dims.size() > 0) {
    for (int64_t d : dims) {
      int64_t w;
      ETARM_KERNEL_CHECK(ctx, wrap_dim(d, rank, &w) && !reduce[w], "mean.out: bad dim list");
      reduce[w] = rank > 0;
    }
  } else {
    ETARM_KERNEL_CHECK(ctx, is_none_arg(stack, 1) || dims.size() == 0, "mean.out: bad dim list");
    for (ssize_t d = 0; d < rank; ++d) {
      reduce[d] = true;
    }
  }
  int32_t sizes[kMaxDim];
  size_t out_rank = 0;
  int32_t in_strides[kMaxDim];
  int32_t out_strides[kMaxDim];
  int64_t count = 1;
  for (ssize_t d = 0; d < rank; ++d) {
    if (reduce[d]) {
      count *= in->size(d);
      if (keepdim) {
        sizes[out_rank++] = 1;
      }
    } else {
      sizes[out_rank++] = in->size(d);
    }
  }
  ETARM_KERNEL_CHECK(
      ctx, out->dim() == static_cast<ssize_t>(out_rank) && resize_out(*out, sizes, out_rank), "mean.out: bad output shape");
  ETARM_KERNEL_CHECK(ctx, has_data(*in) && has_data(*out), "mean.out: tensor without data");
  // Strides of the output seen with the input's rank: 0 along reduced dims.
  for (ssize_t d = 0, od = 0; d < rank; ++d) {
    in_strides[d] = in->strides()[d];
    if (reduce[d]) {
      out_strides[d] = 0;
      od += keepdim;
    } else {
      out_strides[d] = out->strides()[od++];
    }
  }
  float* y = out->mutable_data_ptr<float>();
  const float* x = in->const_data_ptr<float>();
  for (ssize_t i = 0; i < out->numel(); ++i) {
    y[i] = 0.0f;
  }
  BroadcastWalker w(in->sizes().data(), rank, in_strides, out_strides);
  for (ssize_t i = 0; i < in->numel(); ++i, w.next()) {
    y[w.b()] += x[w.a()];
  }
  const float scale = count > 0 ? 1.0f / static_cast<float>(count) : 0.0f;
  for (ssize_t i = 0; i < out->numel(); ++i) {
    y[i] = count > 0 ? y[i] * scale : NAN;
  }
}

} // namespace
ETARM_KERNEL(aten, mean, out, mean_out)
} // namespace kernels
} // namespace etarm
