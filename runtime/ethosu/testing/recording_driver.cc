#include "runtime/ethosu/testing/recording_driver.h"

namespace etarm {
namespace ethosu {
namespace testing {

uint8_t RecordingDriver::pattern_byte(uint32_t region, size_t offset, size_t call) {
  // Distinct per region, offset and call; every byte value occurs.
  return static_cast<uint8_t>(offset * 29u + region * 101u + call * 53u + 7u);
}

Error RecordingDriver::invoke(const CommandStream& stream, const BaseAddress* regions, size_t num_regions) {
  Invocation inv;
  inv.command_stream.assign(stream.data, stream.data + stream.size);
  inv.command_stream_address = stream.data;
  for (size_t r = 0; r < num_regions; ++r) {
    RecordedRegion rec{regions[r].address, regions[r].size, {}};
    if (regions[r].address != nullptr) {
      rec.bytes.assign(regions[r].address, regions[r].address + regions[r].size);
    }
    inv.regions.push_back(std::move(rec));
  }
  const size_t call = invocations_.size();
  invocations_.push_back(std::move(inv));
  if (error_ != Error::Ok) {
    return error_;
  }
  for (size_t r = kRegionScratch; r < num_regions; ++r) {
    for (size_t k = 0; regions[r].address != nullptr && k < regions[r].size; ++k) {
      regions[r].address[k] = pattern_byte(static_cast<uint32_t>(r), k, call);
    }
  }
  return Error::Ok;
}

}  // namespace testing
}  // namespace ethosu
}  // namespace etarm
