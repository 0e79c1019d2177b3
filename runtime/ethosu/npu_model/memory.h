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
// The address space of the NPU's internal memory (U55/U65 SHRAM, U85 LUT RAM) in an AccessRange.
constexpr uint32_t kInternalSpace = kMaxRegions;

// The bytes one kind of access of one command touched, as a single range [lo, hi) of one
// address space (a region, or kInternalSpace): the hazard checker works with a few ranges
// per command, never per byte. Empty while lo >= hi.
struct AccessRange {
  // How a feature map lays out its elements (strides, element size, layout): two accesses
  // with the same shape of addressing read and write one tensor alike. All zero for other
  // accesses.
  struct Addressing {
    int64_t stride_x, stride_y, stride_c;
    int32_t elem_bytes, layout;
    bool operator==(const Addressing& o) const {
      return stride_x == o.stride_x && stride_y == o.stride_y && stride_c == o.stride_c &&
             elem_bytes == o.elem_bytes && layout == o.layout;
    }
  };

  const char* what;  // "IFM", "OFM", "WEIGHT", "DMA destination", ...
  uint32_t space;
  bool write;
  uint64_t lo, hi;
  Addressing addressing;

  void add(uint64_t begin, uint64_t end) {
    if (begin < lo) lo = begin;
    if (end > hi) hi = end;
  }
  bool empty() const {
    return lo >= hi;
  }
  bool overlaps(const AccessRange& other) const {
    return space == other.space && lo < other.hi && other.lo < hi && !empty() && !other.empty();
  }
};

// The spans of one command, one per (what, space, direction). Past kMaxSpans kinds, a new
// kind joins an existing span of the same space and direction (wider, never lost): there
// are 2 * (kMaxRegions + 1) such pairs, so one always exists.
class Footprint {
 public:
  static constexpr size_t kMaxSpans = 2 * (kMaxRegions + 1);

  void clear() {
    count_ = 0;
  }
  // The span of `what` in `space` (created empty on first use).
  AccessRange* span(const char* what, uint32_t space, bool write);
  // Adds `range` as a span of its own (another command's), or widens one of its space and
  // direction when full.
  void append(const AccessRange& range);
  size_t size() const {
    return count_;
  }
  const AccessRange& operator[](size_t i) const {
    return spans_[i];
  }

 private:
  AccessRange spans_[kMaxSpans];
  size_t count_ = 0;
};

class Memory {
 public:
  Memory(const Region* regions, size_t num_regions, uint8_t* shram, size_t shram_size)
      : regions_(regions), num_regions_(num_regions), shram_(shram), shram_size_(shram_size) {}

  // Bytes [address, address + size) of `region` (size 0 is allowed); `what` names the
  // access in the error ("IFM", "DMA source", ...).
  Status bytes(uint32_t region, uint64_t address, uint64_t size, bool write, const char* what, uint8_t** out) const;

  // Bytes [address, address + size) of the SHRAM (`write`: the access stores there).
  Status shram_bytes(uint64_t address, uint64_t size, bool write, const char* what, uint8_t** out) const;

  // From now on, every access (and every feature-map element, see FeatureMap::span) is
  // noted in `footprint` (nullptr: none is).
  void record_to(Footprint* footprint) {
    footprint_ = footprint;
  }
  // The span accesses of `what` add to, or nullptr when nothing is recorded.
  AccessRange* span(const char* what, uint32_t space, bool write) const {
    return footprint_ != nullptr ? footprint_->span(what, space, write) : nullptr;
  }

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
  Footprint* footprint_ = nullptr;
};

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
