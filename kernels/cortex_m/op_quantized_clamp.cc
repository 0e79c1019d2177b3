// cortex_m::quantized_clamp.out(Tensor input, int input_zero_point, int multiplier, int shift,
//     int output_zero_point, int activation_min, int activation_max, *, Tensor(a!) out) -> Tensor(a!)
//
// A relu / relu6 / hardtanh / clamp the quantizer did not fuse into the op before it, between its own dequantize and
// quantize, on int8 data of any shape, out resized to the input's:
//   out[i] = clamp(rq(input[i] - input_zero_point, multiplier, shift) + output_zero_point, activation_min,
//                  activation_max)
// the scale input_scale / output_scale (often 1 or more: the activation's observer sees a narrower range), the bounds
// the activation's, in output steps: TOSA's RESCALE and CLAMP (requantize_clamp.h). CMSIS-NN's arm_relu_q7 neither
// rescales nor takes zero points, so this is the project's. int16 input and output (a16w8): zero points 0, bounds within
// [-32767, 32767]. python/etarm/cortex_m/passes/quantized_clamp_as_cortex_m.py.
#include "kernels/cortex_m/requantize_clamp.h"

namespace etarm {
namespace kernels {
namespace {

constexpr const char* kName = "cortex_m::quantized_clamp.out";

template <typename T>
void requantize_clamp_all(const Tensor& input, const cortex_m::RequantizeClamp& r, Tensor& out) {
  const T* in = input.const_data_ptr<T>();
  T* o = out.mutable_data_ptr<T>();
  for (ssize_t i = 0; i < input.numel(); ++i) {
    o[i] = cortex_m::requantize_clamp<T>(int64_t{in[i]} - r.input_zero_point, r);
  }
}

void quantized_clamp_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  const Tensor* input = tensor_arg(stack, 0);
  Tensor* out = tensor_arg(stack, 7);
  ETARM_KERNEL_CHECK(ctx, stack.size() == 9 && input && out, "%s: bad arguments", kName);
  const bool s16 = input->scalar_type() == ScalarType::Short;
  cortex_m::RequantizeClamp r;
  const char* wrong = cortex_m::requantize_clamp_args(stack, 1, s16, &r);
  ETARM_KERNEL_CHECK(ctx, wrong == nullptr, "%s: %s", kName, wrong);
  ETARM_KERNEL_CHECK(
      ctx, (s16 || input->scalar_type() == ScalarType::Char) && out->scalar_type() == input->scalar_type() &&
          contiguous(*input) && contiguous(*out) && input->dim() == out->dim() &&
          input->dim() <= static_cast<ssize_t>(kMaxDim),
      "%s: contiguous int8 (or int16) input and output of one type and rank only", kName);
  int32_t sizes[kMaxDim];
  for (ssize_t d = 0; d < input->dim(); ++d) {
    sizes[d] = static_cast<int32_t>(input->size(d));
  }
  ETARM_KERNEL_CHECK(ctx, resize_out(*out, sizes, input->dim()), "%s: bad output shape", kName);
  if (input->numel() == 0) {
    return;
  }
  ETARM_KERNEL_CHECK(ctx, has_data(*input) && has_data(*out), "%s: tensor without data", kName);
  if (s16) {
    requantize_clamp_all<int16_t>(*input, r, *out);
  } else {
    requantize_clamp_all<int8_t>(*input, r, *out);
  }
}

} // namespace
ETARM_KERNEL(cortex_m, quantized_clamp, out, quantized_clamp_out)
} // namespace kernels
} // namespace etarm
