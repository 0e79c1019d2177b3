#include "runtime/ethosu/npu_model/scaling.h"

namespace etarm {
namespace ethosu {
namespace npu_model {
namespace {

// A signed 96-bit number hi * 2^32 + lo.
struct Wide {
  int64_t hi;
  uint32_t lo;
};

Wide multiply(int64_t value, uint32_t scale) {
  // value = vh * 2^32 + vl with vl in [0, 2^32): |vh| <= 2^31, so vh * scale (+ the carry)
  // fits 64 bits.
  const int64_t vh = value >> 32;  // arithmetic
  const uint64_t vl = static_cast<uint32_t>(value);
  const uint64_t low = vl * scale;
  Wide w;
  w.hi = vh * static_cast<int64_t>(scale) + static_cast<int64_t>(low >> 32);
  w.lo = static_cast<uint32_t>(low);
  return w;
}

Wide add(Wide a, int64_t b) {
  const uint64_t lo = uint64_t{a.lo} + static_cast<uint32_t>(b);
  Wide w;
  w.hi = a.hi + (b >> 32) + static_cast<int64_t>(lo >> 32);
  w.lo = static_cast<uint32_t>(lo);
  return w;
}

// floor(w / 2^shift).
int64_t shift_right(Wide w, uint32_t shift) {
  if (shift == 0) {
    return static_cast<int64_t>(static_cast<uint64_t>(w.hi) << 32 | w.lo);
  }
  if (shift >= 32) {
    return shift - 32 >= 63 ? (w.hi < 0 ? -1 : 0) : w.hi >> (shift - 32);
  }
  return static_cast<int64_t>(static_cast<uint64_t>(w.hi) << (32 - shift)) | static_cast<int64_t>(w.lo >> shift);
}

}  // namespace

int64_t scale_and_round(int64_t value, uint32_t scale, uint32_t shift, RoundMode mode) {
  int64_t rounding = 0;
  if (shift > 0) {
    const int64_t half = int64_t{1} << (shift - 1);
    switch (mode) {
      case RoundMode::kNatural:
        rounding = half;
        break;
      case RoundMode::kDouble:
        rounding = half;
        if (shift > 31) {
          rounding += value >= 0 ? (int64_t{1} << 30) : -(int64_t{1} << 30);
        }
        break;
      case RoundMode::kFloor:
        break;
      case RoundMode::kTruncate:
      default:
        // Toward zero: a negative product rounds up.
        rounding = value < 0 ? static_cast<int64_t>((uint64_t{1} << shift) - 1) : 0;
        break;
    }
  }
  return shift_right(add(multiply(value, scale), rounding), shift);
}

int64_t shift_right_rounded(int64_t a, uint32_t shift, RoundMode mode) {
  if (shift == 0) {
    return a;
  }
  switch (mode) {
    case RoundMode::kTruncate:
      return a < 0 ? -((-a) >> shift) : a >> shift;
    case RoundMode::kFloor:
      return a >> shift;  // arithmetic
    default:
      return (a + (int64_t{1} << (shift - 1))) >> shift;
  }
}

int64_t count_leading_zeros(uint32_t v) {
  int64_t n = 0;
  for (uint32_t bit = 0x80000000u; bit != 0 && (v & bit) == 0; bit >>= 1) {
    ++n;
  }
  return n;
}

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
