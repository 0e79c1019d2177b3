#include "kernels/cortex_m/cortex_m_util.h"

namespace etarm {
namespace kernels {
namespace cortex_m {

namespace {

bool int32_arg(Span<EValue*> stack, size_t i, int32_t* v) {
  int64_t value;
  if (!int_arg(stack, i, &value) || value < INT32_MIN || value > INT32_MAX) {
    return false;
  }
  *v = static_cast<int32_t>(value);
  return true;
}

} // namespace

bool requantize_args(Span<EValue*> stack, size_t first, Requantize* r) {
  return int32_arg(stack, first, &r->zero_point) && int32_arg(stack, first + 1, &r->multiplier) &&
      int32_arg(stack, first + 2, &r->shift);
}

bool valid_int8(const Requantize& r) {
  return r.zero_point >= INT8_MIN && r.zero_point <= INT8_MAX && r.multiplier > 0 && r.shift >= -31 && r.shift <= 0;
}

} // namespace cortex_m
} // namespace kernels
} // namespace etarm
