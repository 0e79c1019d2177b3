// CMSIS-NN's packed int4 weights for the kernel tests, written from the layout's definition
// (python/etarm/cortex_m/int4.py): the values in row-major order, two per byte, the first of each pair in the low
// nibble; an odd count leaves the last high nibble 0.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/testing/harness.h"

namespace etarm {
namespace kernels {
namespace testing {

// int8 `values` within [-8, 7] (any shape, contiguous) -> int8 [ceil(numel / 2)].
inline void pack_int4(const TestTensor& values, TestTensor& packed) {
  const int8_t* v = values.data<int8_t>();
  int8_t* p = packed.data<int8_t>();
  const size_t count = values.numel();
  for (size_t i = 0; i < (count + 1) / 2; ++i) {
    const uint8_t low = static_cast<uint8_t>(v[2 * i]) & 0xF;
    const uint8_t high = 2 * i + 1 < count ? static_cast<uint8_t>(v[2 * i + 1]) & 0xF : 0;
    p[i] = static_cast<int8_t>(static_cast<uint8_t>(high << 4 | low));
  }
}

inline int32_t packed_int4_bytes(const TestTensor& values) {
  return static_cast<int32_t>((values.numel() + 1) / 2);
}

}  // namespace testing
}  // namespace kernels
}  // namespace etarm
