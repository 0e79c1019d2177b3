// Fixed-point scaling: value * scale, shifted right with the operation's rounding.
//
//   natural   (1 << (shift - 1)) is added before the shift: round half up; what TOSA's
//             RESCALE with SINGLE_ROUND does;
//   double    natural, plus (1 << 30) away from zero when shift > 31: TOSA's DOUBLE_ROUND;
//   truncate  toward zero;
//   floor     toward minus infinity (U85's TRUNCATE_TO_LOWER).
// The product of a 64-bit value and a 32-bit scale needs up to 96 bits: it is formed from
// 32-bit halves, so this also runs where there is no 128-bit integer type.
#pragma once

#include <cstdint>

#include "runtime/ethosu/npu_model/isa.h"

namespace etarm {
namespace ethosu {
namespace npu_model {

// (value * scale + rounding) >> shift, for any value and shift in [0, 63] (the result wraps
// if it does not fit 64 bits).
int64_t scale_and_round(int64_t value, uint32_t scale, uint32_t shift, RoundMode mode);

// a >> shift rounded as `mode` says: truncate toward zero, floor down, natural and double
// half up (an elementwise shift has no double-rounding term).
int64_t shift_right_rounded(int64_t a, uint32_t shift, RoundMode mode);

// The leading zero bits of v.
int64_t count_leading_zeros(uint32_t v);

// Clamps to [lo, hi].
inline int64_t clamp(int64_t v, int64_t lo, int64_t hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
