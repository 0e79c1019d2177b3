// cortex_m::quantized_mean_hw.out(Tensor input, int input_zero_point, int multiplier, int shift,
//     int output_zero_point, int activation_min, int activation_max, *, Tensor(a!) out) -> Tensor(a!)
//
// int8 NHWC input [N, H, W, C] -> int8 [N, C], H * W at most 2^23 (the sum stays exact in int32):
//   out[n, c] = clamp(rq(sum_{h, w} (input[n, h, w, c] - input_zero_point), multiplier, shift) + output_zero_point,
//                     activation_min, activation_max)
// with rq(x, m, s) = round_half_up(x * m * 2^(s - 31)), shift in [-31, 30] (input_scale / (H * W * output_scale)):
// TOSA's REDUCE_SUM and one RESCALE (requantize_clamp.h). The snapshot's arm_avgpool_s8 rounds the average itself and
// cannot rescale, so this is the project's: one pass over the pixels summing each channel into an int32 row from the
// method's temporary allocator. int16 input and output (a16w8): zero points 0, H * W at most 2^16 (32767 * 2^16 <
// 2^31). python/etarm/cortex_m/passes/quantized_mean_hw_as_cortex_m.py.
#include "kernels/cortex_m/requantize_clamp.h"
#include "kernels/cortex_m/window_args.h"

namespace etarm {
namespace kernels {
namespace {

constexpr const char* kName = "cortex_m::quantized_mean_hw.out";
constexpr int64_t kMostTaps = int64_t{1} << 23;     // 255 * 2^23 < 2^31
constexpr int64_t kMostTapsS16 = int64_t{1} << 16;  // 32767 * 2^16 < 2^31

// Sums each image's channels over its taps into `sums` (c int32), then requantizes them into out [n, c].
template <typename T>
void mean_hw(const Tensor& input, int64_t taps, const cortex_m::RequantizeClamp& r, int32_t* sums, Tensor& out) {
  const ssize_t n = input.size(0), c = input.size(3);
  const T* in = input.const_data_ptr<T>();
  T* o = out.mutable_data_ptr<T>();
  const int64_t offset = taps * r.input_zero_point;
  for (ssize_t b = 0; b < n; ++b) {
    for (ssize_t k = 0; k < c; ++k) {
      sums[k] = 0;
    }
    for (int64_t p = 0; p < taps; ++p, in += c) {
      for (ssize_t k = 0; k < c; ++k) {
        sums[k] += in[k];
      }
    }
    for (ssize_t k = 0; k < c; ++k) {
      o[b * c + k] = cortex_m::requantize_clamp<T>(sums[k] - offset, r);
    }
  }
}

void quantized_mean_hw_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  const Tensor* input = tensor_arg(stack, 0);
  Tensor* out = tensor_arg(stack, 7);
  ETARM_KERNEL_CHECK(ctx, stack.size() == 9 && input && out, "%s: bad arguments", kName);
  const bool s16 = input->scalar_type() == ScalarType::Short;
  cortex_m::RequantizeClamp r;
  const char* wrong = cortex_m::requantize_clamp_args(stack, 1, s16, &r);
  ETARM_KERNEL_CHECK(ctx, wrong == nullptr, "%s: %s", kName, wrong);
  ETARM_KERNEL_CHECK(
      ctx, (s16 || input->scalar_type() == ScalarType::Char) && out->scalar_type() == input->scalar_type() &&
          input->dim() == 4 && out->dim() == 2 && contiguous(*input) && contiguous(*out),
      "%s: a contiguous int8 (or int16) NHWC input and a contiguous [N, C] output of its type only", kName);
  const ssize_t n = input->size(0), c = input->size(3);
  const int64_t taps = int64_t{input->size(1)} * input->size(2);
  ETARM_KERNEL_CHECK(
      ctx, taps > 0 && taps <= (s16 ? kMostTapsS16 : kMostTaps), "%s: H * W must be in [1, %s]", kName,
      s16 ? "2^16 for int16" : "2^23");
  const int32_t sizes[2] = {static_cast<int32_t>(n), static_cast<int32_t>(c)};
  ETARM_KERNEL_CHECK(ctx, n <= INT32_MAX && c <= INT32_MAX && resize_out(*out, sizes, 2), "%s: bad output shape", kName);
  if (n == 0 || c == 0) {
    return;
  }
  ETARM_KERNEL_CHECK(ctx, has_data(*input) && has_data(*out), "%s: tensor without data", kName);
  void* row;
  ETARM_KERNEL_CHECK(
      ctx, c <= INT32_MAX / 4 && cortex_m::scratch_buffer(ctx, static_cast<int32_t>(4 * c), &row),
      "%s: no temporary memory for %d int32 sums", kName, static_cast<int>(c));
  if (s16) {
    mean_hw<int16_t>(*input, taps, r, static_cast<int32_t*>(row), *out);
  } else {
    mean_hw<int8_t>(*input, taps, r, static_cast<int32_t*>(row), *out);
  }
}

} // namespace
ETARM_KERNEL(cortex_m, quantized_mean_hw, out, quantized_mean_hw_out)
} // namespace kernels
} // namespace etarm
