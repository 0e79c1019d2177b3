#include "runtime/ethosu/npu_model/memory.h"

#include <cinttypes>

namespace etarm {
namespace ethosu {
namespace npu_model {

Status Memory::bytes(uint32_t region, uint64_t address, uint64_t size, bool write, const char* what,
                     uint8_t** out) const {
  *out = nullptr;
  if (region >= num_regions_) {
    return Status::error(Fault::kOutOfBounds, "%s uses region %" PRIu32 "; the driver gave %zu regions", what, region,
                         num_regions_);
  }
  const Region& r = regions_[region];
  if (write && !r.writable) {
    return Status::error(Fault::kOutOfBounds, "%s writes region %" PRIu32 ", which is read-only", what, region);
  }
  if (address > r.size || size > r.size - address || (r.data == nullptr && size > 0)) {
    return Status::error(Fault::kOutOfBounds,
                         "%s bytes [%" PRIu64 ", %" PRIu64 ") lie outside region %" PRIu32 " of %zu bytes", what,
                         address, address + size, region, r.size);
  }
  *out = r.data + address;
  return Status();
}

Status Memory::shram_bytes(uint64_t address, uint64_t size, const char* what, uint8_t** out) const {
  *out = nullptr;
  if (address > shram_size_ || size > shram_size_ - address) {
    return Status::error(Fault::kOutOfBounds,
                         "%s bytes [%" PRIu64 ", %" PRIu64 ") lie outside the NPU's %zu-byte internal memory", what,
                         address, address + size, shram_size_);
  }
  *out = shram_ + address;
  return Status();
}

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
