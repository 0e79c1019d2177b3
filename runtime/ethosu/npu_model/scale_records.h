// The per-channel records of a scale stream (SCALE_BASE/SCALE_LENGTH): one 10-byte
// little-endian record per OFM channel the core computes, in channel order:
//   bytes 0..4  bias, 40-bit two's complement (added to the accumulator)
//   bytes 5..8  scale, unsigned 32-bit multiplier
//   byte  9     shift in bits 0..5
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/ethosu/npu_model/status.h"

namespace etarm {
namespace ethosu {
namespace npu_model {

constexpr size_t kScaleRecordBytes = 10;

struct ChannelScale {
  int64_t bias;
  uint32_t scale;
  uint32_t shift;
};

// Reads `count` records from `data[0, length)`.
Status read_scale_records(const uint8_t* data, size_t length, size_t count, ChannelScale* out);

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
