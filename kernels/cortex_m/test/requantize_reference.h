// The integer reference the cortex_m kernel tests share: scales as CMSIS-NN multipliers and shifts
// (as python/etarm/cortex_m/requantize.py computes them) and TOSA RESCALE with SINGLE_ROUND.
#pragma once

#include <cmath>
#include <cstdint>

namespace etarm {
namespace kernels {
namespace testing {

// A zero point and a scale as multiplier * 2^(shift - 31).
struct Params {
  int64_t zero_point, multiplier, shift;
};

// The multiplier in [2^30, 2^31) and shift of a scale in (0, 1).
inline Params params(int64_t zero_point, double scale) {
  int exponent;
  const double mantissa = std::frexp(scale, &exponent);
  int64_t multiplier = std::llround(mantissa * 2147483648.0);
  if (multiplier == (int64_t{1} << 31)) {
    multiplier >>= 1;
    ++exponent;
  }
  return {zero_point, multiplier, exponent};
}

// (x * m + 2^(r - 1)) >> r with r = 31 - shift, in int64: one rounding, half up.
inline int64_t rescale(int64_t x, const Params& p) {
  const int64_t r = 31 - p.shift;
  return (x * p.multiplier + (int64_t{1} << (r - 1))) >> r;
}

// CMSIS-NN's int16 requantization (the s16 kernels): the multiplier rounded to its top 15 bits, then
// (x * reduced + 2^(r - 1)) >> r with r = 15 - shift, in int64: one rounding, half up.
inline int64_t rescale_s16(int64_t x, const Params& p) {
  const int64_t reduced = p.multiplier < 0x7FFF0000 ? (p.multiplier + (1 << 15)) >> 16 : 0x7FFF;
  const int64_t r = 15 - p.shift;
  return (x * reduced + (int64_t{1} << (r - 1))) >> r;
}

// The parameters of a quantized add or sub, as the compiler chooses them: both operands rescaled to a common int32
// step of 2 * max(scale) / 2^left_shift (20 for int8, 15 for int16), that step rescaled into the output.
struct Additive {
  Params a, b, out;
};

inline Additive additive(double scale_a, int64_t zp_a, double scale_b, int64_t zp_b, double scale_out, int64_t zp_out,
                         int left_shift = 20) {
  const double twice_max = 2 * std::fmax(scale_a, scale_b);
  return {params(zp_a, scale_a / twice_max), params(zp_b, scale_b / twice_max),
          params(zp_out, twice_max / (1 << left_shift) / scale_out)};
}

inline int64_t clamp_int8(int64_t q) {
  return q < -128 ? -128 : (q > 127 ? 127 : q);
}

// a16w8's symmetric int16 range: the kernels never write -32768.
inline int64_t clamp_int16(int64_t q) {
  return q < -32767 ? -32767 : (q > 32767 ? 32767 : q);
}

}  // namespace testing
}  // namespace kernels
}  // namespace etarm
