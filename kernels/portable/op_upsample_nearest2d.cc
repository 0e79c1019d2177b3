// aten::upsample_nearest2d.vec_out(Tensor input, SymInt[]? output_size, float[]? scale_factors, *, Tensor(a!) out)
// Nearest-neighbour resize of an NCHW tensor of any dtype: output pixel (y, x) copies input pixel
// (min(floor(y * scale_h), H - 1), min(floor(x * scale_w), W - 1)), with torch's float scales: 1 / factor when
// scale factors are given, else H / OH and W / OW. Values move unchanged, so int8 data needs no requantization.
#include <cmath>
#include <cstring>

#include "kernels/portable/kernel_util.h"

namespace etarm {
namespace kernels {
namespace {

// torch's nearest source index, in float as torch computes it.
int32_t source_index(int32_t dst, float scale, int32_t in_size, int32_t out_size) {
  if (out_size == in_size) {
    return dst;
  }
  const int32_t src = static_cast<int32_t>(std::floor(static_cast<float>(dst) * scale));
  return src < in_size - 1 ? src : in_size - 1;
}

void upsample_nearest2d_vec_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  const Tensor* in = tensor_arg(stack, 0);
  const Tensor* out = tensor_arg(stack, 3);
  ETARM_KERNEL_CHECK(ctx, stack.size() == 5 && in && out, "upsample_nearest2d.vec_out: bad arguments");
  ETARM_KERNEL_CHECK(
      ctx, in->dim() == 4 && out->dim() == 4 && in->scalar_type() == out->scalar_type(),
      "upsample_nearest2d.vec_out: needs 4-D NCHW input and output of one dtype");
  ETARM_KERNEL_CHECK(ctx, contiguous(*in) && contiguous(*out), "upsample_nearest2d.vec_out: contiguous only");
  const int32_t height = static_cast<int32_t>(in->size(2)), width = static_cast<int32_t>(in->size(3));
  int64_t out_height = 0, out_width = 0;
  float scale_h = 0, scale_w = 0;
  ArrayRef<int64_t> size;
  if (int_list_arg(stack, 1, &size)) {
    ETARM_KERNEL_CHECK(
        ctx, size.size() == 2 && size[0] > 0 && size[1] > 0 && size[0] <= INT32_MAX && size[1] <= INT32_MAX &&
            is_none_arg(stack, 2),
        "upsample_nearest2d.vec_out: output_size must be two positive sizes, without scale factors");
    out_height = size[0];
    out_width = size[1];
    scale_h = static_cast<float>(height) / static_cast<float>(out_height);
    scale_w = static_cast<float>(width) / static_cast<float>(out_width);
  } else {
    ETARM_KERNEL_CHECK(
        ctx, is_none_arg(stack, 1) && stack[2]->isDoubleList(),
        "upsample_nearest2d.vec_out: needs output_size or scale_factors");
    ArrayRef<double> factors = stack[2]->toDoubleList();
    ETARM_KERNEL_CHECK(
        ctx, factors.size() == 2 && factors[0] > 0 && factors[1] > 0 && factors[0] * height < INT32_MAX &&
            factors[1] * width < INT32_MAX,
        "upsample_nearest2d.vec_out: scale_factors must be two positive factors");
    out_height = static_cast<int64_t>(std::floor(height * factors[0]));
    out_width = static_cast<int64_t>(std::floor(width * factors[1]));
    scale_h = static_cast<float>(1.0 / factors[0]);
    scale_w = static_cast<float>(1.0 / factors[1]);
  }
  const int32_t sizes[4] = {static_cast<int32_t>(in->size(0)), static_cast<int32_t>(in->size(1)),
                            static_cast<int32_t>(out_height), static_cast<int32_t>(out_width)};
  ETARM_KERNEL_CHECK(ctx, resize_out(*out, sizes, 4), "upsample_nearest2d.vec_out: bad output shape");
  ETARM_KERNEL_CHECK(ctx, has_data(*in) && has_data(*out), "upsample_nearest2d.vec_out: tensor without data");
  if (out->numel() == 0 || height == 0 || width == 0) {
    ETARM_KERNEL_CHECK(ctx, out->numel() == 0, "upsample_nearest2d.vec_out: an empty input has no pixel to copy");
    return;
  }
  const size_t element = in->element_size();
  const auto* src = static_cast<const unsigned char*>(in->const_data_ptr());
  auto* dst = static_cast<unsigned char*>(out->mutable_data_ptr());
  const int64_t planes = static_cast<int64_t>(in->size(0)) * in->size(1);
  for (int64_t plane = 0; plane < planes; ++plane) {
    const unsigned char* src_plane = src + plane * height * width * element;
    for (int32_t y = 0; y < sizes[2]; ++y) {
      const unsigned char* src_row = src_plane + source_index(y, scale_h, height, sizes[2]) * width * element;
      for (int32_t x = 0; x < sizes[3]; ++x) {
        std::memcpy(dst, src_row + source_index(x, scale_w, width, sizes[3]) * element, element);
        dst += element;
      }
    }
  }
}

} // namespace
ETARM_KERNEL(aten, upsample_nearest2d, vec_out, upsample_nearest2d_vec_out)
} // namespace kernels
} // namespace etarm
