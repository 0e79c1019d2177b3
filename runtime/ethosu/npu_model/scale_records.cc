#include "runtime/ethosu/npu_model/scale_records.h"

namespace etarm {
namespace ethosu {
namespace npu_model {

Status read_scale_records(const uint8_t* data, size_t length, size_t count, ChannelScale* out) {
  if (count > length / kScaleRecordBytes) {
    return Status::error(Fault::kBadWeights, "the scale stream of %zu bytes holds %zu records; the operation needs %zu",
                         length, length / kScaleRecordBytes, count);
  }
  for (size_t i = 0; i < count; ++i) {
    const uint8_t* r = data + i * kScaleRecordBytes;
    uint64_t bias = 0;
    for (int b = 0; b < 5; ++b) {
      bias |= uint64_t{r[b]} << (8 * b);
    }
    // Sign-extend from 40 bits.
    out[i].bias = (bias & (uint64_t{1} << 39)) != 0 ? static_cast<int64_t>(bias) - (int64_t{1} << 40)
                                                    : static_cast<int64_t>(bias);
    out[i].scale = uint32_t{r[5]} | (uint32_t{r[6]} << 8) | (uint32_t{r[7]} << 16) | (uint32_t{r[8]} << 24);
    out[i].shift = r[9] & 0x3F;
  }
  return Status();
}

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
