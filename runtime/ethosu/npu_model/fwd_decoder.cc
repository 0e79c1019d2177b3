#include "runtime/ethosu/npu_model/fwd_decoder.h"

namespace etarm {
namespace ethosu {
namespace npu_model {
namespace {

constexpr size_t kHeaderBits = 256;
constexpr int kTableEntries = 16;

// Bits [pos, pos + width) of the stream, least-significant first (the caller checks bounds).
uint32_t bits_at(const uint8_t* data, size_t pos, int width) {
  uint32_t v = 0;
  for (int i = 0; i < width; ++i) {
    const size_t bit = pos + static_cast<size_t>(i);
    v |= static_cast<uint32_t>((data[bit / 8] >> (bit % 8)) & 1u) << i;
  }
  return v;
}

int16_t unfold(uint32_t v) {
  const int16_t magnitude = static_cast<int16_t>(v >> 1);
  return (v & 1u) != 0 ? static_cast<int16_t>(-magnitude) : magnitude;
}

}  // namespace

Status decode_fwd(const uint8_t* data, size_t size, int16_t* out, size_t count) {
  if (size * 8 < kHeaderBits) {
    return Status::error(Fault::kBadWeights, "a fast-weight stream of %zu bytes has no 256-bit header", size);
  }
  const bool raw = bits_at(data, 0, 1) != 0;
  const bool small = bits_at(data, 1, 1) != 0;
  if (raw && small) {
    return Status::error(Fault::kBadWeights, "a fast-weight header sets both raw mode and 2-bit indices");
  }
  const int32_t zero_adjust = static_cast<int8_t>(bits_at(data, 104, 8));
  int16_t table[kTableEntries];
  for (int i = 0; i < kTableEntries; ++i) {
    table[i] = unfold(bits_at(data, 112 + 9 * static_cast<size_t>(i), 9));
  }
  const int width = raw ? 8 : small ? 2 : 4;
  if (count > (size * 8 - kHeaderBits) / static_cast<size_t>(width)) {
    return Status::error(Fault::kBadWeights, "a fast-weight stream of %zu bytes holds fewer than %zu %d-bit weights",
                         size, count, width);
  }
  for (size_t i = 0; i < count; ++i) {
    const uint32_t v = bits_at(data, kHeaderBits + i * static_cast<size_t>(width), width);
    out[i] = raw ? static_cast<int16_t>(static_cast<int8_t>(v) - zero_adjust) : table[v];
  }
  return Status();
}

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
