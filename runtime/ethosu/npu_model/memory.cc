#include "runtime/ethosu/npu_model/memory.h"

#include <cinttypes>
#include <cstring>

namespace etarm {
namespace ethosu {
namespace npu_model {

AccessRange* Footprint::span(const char* what, uint32_t space, bool write) {
  for (size_t i = 0; i < count_; ++i) {
    AccessRange& s = spans_[i];
    if (s.space == space && s.write == write && std::strcmp(s.what, what) == 0) return &s;
  }
  if (count_ < kMaxSpans) {
    spans_[count_] = AccessRange{what, space, write, UINT64_MAX, 0, {}};
    return &spans_[count_++];
  }
  for (size_t i = 0; i < count_; ++i) {
    if (spans_[i].space == space && spans_[i].write == write) return &spans_[i];
  }
  return &spans_[0];  // unreachable: kMaxSpans covers every (space, direction) pair
}

void Footprint::append(const AccessRange& range) {
  if (range.empty()) return;
  if (count_ < kMaxSpans) {
    spans_[count_++] = range;
    return;
  }
  AccessRange* s = span(range.what, range.space, range.write);
  s->add(range.lo, range.hi);
}

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
  if (size > 0 && footprint_ != nullptr) {
    footprint_->span(what, region, write)->add(address, address + size);
  }
  return Status();
}

Status Memory::shram_bytes(uint64_t address, uint64_t size, bool write, const char* what, uint8_t** out) const {
  *out = nullptr;
  if (address > shram_size_ || size > shram_size_ - address) {
    return Status::error(Fault::kOutOfBounds,
                         "%s bytes [%" PRIu64 ", %" PRIu64 ") lie outside the NPU's %zu-byte internal memory", what,
                         address, address + size, shram_size_);
  }
  *out = shram_ + address;
  if (size > 0 && footprint_ != nullptr) {
    footprint_->span(what, kInternalSpace, write)->add(address, address + size);
  }
  return Status();
}

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
