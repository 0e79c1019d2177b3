// cortex_m::quantized_clamp.out(Tensor input, int input_zero_point, int multiplier, int shift,
//     int output_zero_point, int activation_min, int activation_max, *, Tensor(a!) out) -> Tensor(a!)
//
// A relu / relu6 / hardtanh / clamp the quantizer did not fuse into the op before it, between its own dequantize and
// quantize, on int8 data of any shape, out resized to the input's:
//   out[i] = clamp(rq(input[i] - input_zero_point, multiplier, shift) + output_zero_point, activation_min,
//                  activation_max)
// the scale input_scale / output_scale (often 1 or more: the activation's observer sees a narrower range), the bounds
// the activation's, in output steps: TOSA's RESCALE and CLAMP (requantize_clamp.h). CMSIS-NN's arm_relu_q7 neither
// rescales nor takes zero points, so this is the project's. python/etarm/cortex_m/passes/quantized_clamp_as_cortex_m.py.
#include "kernels/cortex_m/requantize_clamp.h"

namespace etarm {
namespace kernels {
namespace {

constexpr const char* kName = "cortex_m::quantized_clamp.out";

void quantized_clamp_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  const Tensor* input = tensor_arg(stack, 0);
  const Tensor* out = tensor_arg(stack, 7);
  ETARM_KERNEL_CHECK(ctx, stack.size() == 9 && input && out, "%s: bad arguments", kName);
  cortex_m::RequantizeClamp r;
  const char* wrong = cortex_m::requantize_clamp_args(stack, 1, &r);
  ETARM_KERNEL_CHECK(ctx, wrong == nullptr, "%s: %s", kName, wrong);
  ETARM_KERNEL_CHECK(
      ctx, input->scalar_type() == ScalarType::Char && out->scalar_type() == ScalarType::Char && contiguous(*input) &&
          contiguous(*out) && input->dim() == out->dim() && input->dim() <= static_cast<ssize_t>(kMaxDim),
      "%s: contiguous int8 input and output of the same rank only", kName);
  int32_t sizes[kMaxDim];
  for (ssize_t d = 0; d < input->dim(); ++d) {
    sizes[d] = static_cast<int32_t>(input->size(d));
  }
  ETARM_KERNEL_CHECK(ctx, resize_out(*out, sizes, input->dim()), "%s: bad output shape", kName);
  if (input->numel() == 0) {
    return;
  }
  ETARM_KERNEL_CHECK(ctx, has_data(*input) && has_data(*out), "%s: tensor without data", kName);
  const int8_t* in = input->const_data_ptr<int8_t>();
  int8_t* o = out->mutable_data_ptr<int8_t>();
  for (ssize_t i = 0; i < input->numel(); ++i) {
    o[i] = cortex_m::requantize_clamp(int64_t{in[i]} - r.input_zero_point, r);
  }
}

} // namespace
ETARM_REGISTER_KERNEL("cortex_m::quantized_clamp.out", quantized_clamp_out)
} // namespace kernels
} // namespace etarm
