// The memory the NPU sees: the base-address regions the driver was given (region 0 the
// read-only weights, 1 the arena, 2 the fast scratch, ...) and its internal SHRAM, where a
// DMA in internal mode places look-up tables. Every access the model makes goes through
// here and is checked: an address outside a region is an error, never a fault.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/ethosu/npu_model/status.h"

namespace etarm {
namespace ethosu {
namespace npu_model {

// One base-address region. Regions the stream may not write (the weights) have
// writable false; an unused region has data nullptr and size 0.
struct Region {
  uint8_t* data;
  size_t size;
  bool writable;
};

// Vela's region fields are 3 bits wide.
constexpr uint32_t kMaxRegions = 8;

class Memory {
 public:
  Memory(const Region* regions, size_t num_regions, uint8_t* shram, size_t shram_size)
      : regions_(regions), num_regions_(num_regions), shram_(shram), shram_size_(shram_size) {}

  // Bytes [address, address + size) of `region` (size 0 is allowed); `what` names the
  // access in the error ("IFM", "DMA source", ...).
  Status bytes(uint32_t region, uint64_t address, uint64_t size, bool write, const char* what, uint8_t** out) const;

  // Bytes [address, address + size) of the SHRAM.
  Status shram_bytes(uint64_t address, uint64_t size, const char* what, uint8_t** out) const;

  size_t num_regions() const {
    return num_regions_;
  }
  const Region& region(uint32_t index) const {
    return regions_[index];
  }
  size_t shram_size() const {
    return shram_size_;
  }

 private:
  const Region* regions_;
  size_t num_regions_;
  uint8_t* shram_;
  size_t shram_size_;
};

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
