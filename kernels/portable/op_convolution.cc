// aten::convolution.out(Tensor input, Tensor weight, Tensor? bias, int[] stride,
//     int[] padding, int[] dilation, bool transposed, int[] output_padding, int groups,
//     *, Tensor(a!) out)
// Direct 1-D / 2-D convolution on float NC(H)W tensors; transposed convolution is not
// supported.
#include "kernels/portable/kernel_util.h"

namespace etarm {
namespace kernels {
namespace {

// The value for spatial dim `i` of a per-dim list given with 1 or `n` entries.
bool spatial(ArrayRef<int64_t> list, size_t i, size_t n, int64_t* v) {
  if (list.size() != 1 && list.size() != n) {
    return false;
  }
  *v = list[list.size() == 1 ? 0 : i];
  return true;
}

void convolution_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  const Tensor* in = tensor_arg(stack, 0);
  const Tensor* w = tensor_arg(stack, 1);
  const Tensor* bias = tensor_arg(stack, 2);
  const Tensor* out = tensor_arg(stack, 9);
  ArrayRef<int64_t> stride_l, padding_l, dilation_l, output_padding_l;
  bool transposed;
  int64_t groups;
  ETARM_KERNEL_CHECK(
      ctx,
      stack.size() == 11 && in && w && out && (bias || is_none_arg(stack, 2)) && int_list_arg(stack, 3, &stride_l) &&
          int_list_arg(stack, 4, &padding_l) && int_list_arg(stack, 5, &dilation_l) &&
          bool_arg(stack, 6, &transposed) && int_list_arg(stack, 7, &output_padding_l) && int_arg(stack, 8, &groups),
      "convolution.out: bad arguments");
  ETARM_KERNEL_CHECK(ctx, !transposed, "convolution.out: transposed convolution is not supported");
  ETARM_KERNEL_CHECK(
      ctx,
      in->scalar_type() == ScalarType::Float && w->scalar_type() == ScalarType::Float &&
          out->scalar_type() == ScalarType::Float && (!bias || bias->scalar_type() == ScalarType::Float),
      "convolution.out: float only");
  const ssize_t rank = in->dim();
  ETARM_KERNEL_CHECK(
      ctx, (rank == 3 || rank == 4) && w->dim() == rank && out->dim() == rank, "convolution.out: 1-D or 2-D only");
  ETARM_KERNEL_CHECK(
      ctx, contiguous(*in) && contiguous(*w) && contiguous(*out) && (!bias || contiguous(*bias)),
      "convolution.out: contiguous tensors only");
  const size_t n_spatial = static_cast<size_t>(rank - 2);
  const int64_t batch = in->size(0);
  const int64_t in_c = in->size(1);
  const int64_t out_c = w->size(0);
  ETARM_KERNEL_CHECK(
      ctx, groups >= 1 && in_c % groups == 0 && out_c % groups == 0 && w->size(1) == in_c / groups,
      "convolution.out: bad channels / groups");
  ETARM_KERNEL_CHECK(ctx, !bias || (bias->dim() == 1 && bias->size(0) == out_c), "convolution.out: bad bias");
  // Spatial sizes as 2-D (H = 1 for 1-D).
  int64_t in_sz[2] = {1, 1}, k_sz[2] = {1, 1}, s[2] = {1, 1}, p[2] = {0, 0}, d[2] = {1, 1}, o_sz[2] = {1, 1};
  for (size_t i = 0; i < n_spatial; ++i) {
    const size_t j = i + 2 - n_spatial;
    in_sz[j] = in->size(2 + i);
    k_sz[j] = w->size(2 + i);
    ETARM_KERNEL_CHECK(
        ctx,
        spatial(stride_l, i, n_spatial, &s[j]) && spatial(padding_l, i, n_spatial, &p[j]) &&
            spatial(dilation_l, i, n_spatial, &d[j]),
        "convolution.out: bad stride / padding / dilation");
    constexpr int64_t kLimit = 1 << 24; // keeps every size product below int32
    ETARM_KERNEL_CHECK(
        ctx, s[j] >= 1 && s[j] <= kLimit && p[j] >= 0 && p[j] <= kLimit && d[j] >= 1 && d[j] <= kLimit && k_sz[j] >= 1,
        "convolution.out: bad parameters");
    const int64_t span = d[j] * (k_sz[j] - 1) + 1;
    ETARM_KERNEL_CHECK(ctx, in_sz[j] + 2 * p[j] >= span, "convolution.out: kernel larger than the padded input");
    o_sz[j] = (in_sz[j] + 2 * p[j] - span) / s[j] + 1;
    ETARM_KERNEL_CHECK(ctx, o_sz[j] <= INT32_MAX, "convolution.out: output too large");
  }
  int32_t sizes[4] = {static_cast<int32_t>(batch), static_cast<int32_t>(out_c)};
  for (size_t i = 0; i < n_spatial; ++i) {
    sizes[2 + i] = static_cast<int32_t>(o_sz[i + 2 - n_spatial]);
  }
  ETARM_KERNEL_CHECK(ctx, resize_out(*out, sizes, rank), "convolution.out: bad output shape");
  ETARM_KERNEL_CHECK(
      ctx, has_data(*in) && has_data(*w) && has_data(*out) && (!bias || has_data(*bias)),
      "convolution.out: tensor without data");

  const float* x = in->const_data_ptr<float>();
  const float* wt = w->const_data_ptr<float>();
  const float* b = bias ? bias->const_data_ptr<float>() : nullptr;
  float* y = out->mutable_data_ptr<float>();
  const int64_t cg_in = in_c / groups;
  const int64_t cg_out = out_c / groups;
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t oc = 0; oc < out_c; ++oc) {
      const int64_t g = oc / cg_out;
      for (int64_t oh = 0; oh < o_sz[0]; ++oh) {
        for (int64_t ow = 0; ow < o_sz[1]; ++ow) {
          float acc = b ? b[oc] : 0.0f;
          for (int64_t ic = 0; ic < cg_in; ++ic) {
            const float* xc = x + ((n * in_c + g * cg_in + ic) * in_sz[0]) * in_sz[1];
            const float* wc = wt + ((oc * cg_in + ic) * k_sz[0]) * k_sz[1];
            for (int64_t kh = 0; kh < k_sz[0]; ++kh) {
              const int64_t ih = oh * s[0] - p[0] + kh * d[0];
              if (ih < 0 || ih >= in_sz[0]) {
                continue;
              }
              for (int64_t kw = 0; kw < k_sz[1]; ++kw) {
                const int64_t iw = ow * s[1] - p[1] + kw * d[1];
                if (iw >= 0 && iw < in_sz[1]) {
                  acc += xc[ih * in_sz[1] + iw] * wc[kh * k_sz[1] + kw];
                }
              }
            }
          }
          y[((n * out_c + oc) * o_sz[0] + oh) * o_sz[1] + ow] = acc;
        }
      }
    }
  }
}

} // namespace
ETARM_KERNEL(aten, convolution, out, convolution_out)
} // namespace kernels
} // namespace etarm
