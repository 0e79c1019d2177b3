// What cortex_m::quantized_clamp and cortex_m::quantized_mean_hw share: their six int arguments after the input,
//   (int input_zero_point, int multiplier, int shift, int output_zero_point, int activation_min, int activation_max)
// and the arithmetic they end with, on a value already centred on the input's zero point (an int32 sum of such):
//   out = clamp(round_half_up(centred * multiplier * 2^(shift - 31)) + output_zero_point, activation_min, activation_max)
// TOSA's RESCALE (single rounding) and CLAMP. shift in [-31, 30]: the scale may be 1 or more (the project's kernels
// compute in int64: |centred| < 2^31 and multiplier < 2^31). int8 values, or int16 (a16w8): zero points 0, the bounds
// within [-32767, 32767], the same single rounding with the whole 31-bit multiplier.
#pragma once

#include <cstdint>

#include "kernels/portable/kernel_util.h"

namespace etarm {
namespace kernels {
namespace cortex_m {

struct RequantizeClamp {
  int64_t input_zero_point, multiplier, shift, output_zero_point, activation_min, activation_max;
};

// Reads and checks the six arguments from `first` for int16 values (`s16`) or int8 ones: nullptr, or what is wrong.
inline const char* requantize_clamp_args(Span<EValue*> stack, size_t first, bool s16, RequantizeClamp* r) {
  if (!int_arg(stack, first, &r->input_zero_point) || !int_arg(stack, first + 1, &r->multiplier) ||
      !int_arg(stack, first + 2, &r->shift) || !int_arg(stack, first + 3, &r->output_zero_point) ||
      !int_arg(stack, first + 4, &r->activation_min) || !int_arg(stack, first + 5, &r->activation_max)) {
    return "bad arguments";
  }
  if (s16 ? r->input_zero_point != 0 || r->output_zero_point != 0
          : r->input_zero_point < INT8_MIN || r->input_zero_point > INT8_MAX || r->output_zero_point < INT8_MIN ||
              r->output_zero_point > INT8_MAX) {
    return "zero point out of range (int8's, or 0 for int16)";
  }
  if (r->multiplier <= 0 || r->multiplier > INT32_MAX || r->shift < -31 || r->shift > 30) {
    return "multiplier or shift out of range";
  }
  const int64_t lowest = s16 ? -INT16_MAX : INT8_MIN;  // cortex_m_util.h activation_min
  const int64_t highest = s16 ? INT16_MAX : INT8_MAX;
  if (r->activation_min < lowest || r->activation_max > highest || r->activation_min > r->activation_max) {
    return "bad activation range";
  }
  return nullptr;
}

// The result, within the activation range, as T (int8_t or int16_t).
template <typename T>
T requantize_clamp(int64_t centred, const RequantizeClamp& r) {
  const int64_t right = 31 - r.shift;
  int64_t q = ((centred * r.multiplier + (int64_t{1} << (right - 1))) >> right) + r.output_zero_point;
  q = q < r.activation_min ? r.activation_min : (q > r.activation_max ? r.activation_max : q);
  return static_cast<T>(q);
}

} // namespace cortex_m
} // namespace kernels
} // namespace etarm
