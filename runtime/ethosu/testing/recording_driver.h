// A fake EthosUDriver for host tests: records what the delegate hands it and writes a
// deterministic pattern where the NPU would write, so tests can check both directions
// of the I/O copy without an NPU.
//
// On each invoke() it
//  - copies the command stream bytes and every region's pointer and size,
//  - snapshots the bytes of every region as they are when the NPU would start (so the
//    inputs the delegate copied into the arena can be read at their offsets),
//  - then overwrites every writable region (1 and 2) with pattern_byte(region, offset,
//    call), as an NPU writing outputs (and clobbering intermediates) would,
//  - and returns the error set with fail_with() (Error::Ok by default).
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "runtime/ethosu/driver.h"

namespace etarm {
namespace ethosu {
namespace testing {

struct RecordedRegion {
  const uint8_t* address;
  size_t size;
  std::vector<uint8_t> bytes;  // the region's contents at the start of the invocation
};

struct Invocation {
  std::vector<uint8_t> command_stream;
  const uint8_t* command_stream_address;
  std::vector<RecordedRegion> regions;

  // `size` bytes at `offset` of `region` as the NPU found them (e.g. an input the delegate
  // copied into the arena); empty if that range was not handed over.
  std::vector<uint8_t> bytes(uint32_t region, size_t offset, size_t size) const {
    if (region >= regions.size() || offset > regions[region].bytes.size() ||
        size > regions[region].bytes.size() - offset) {
      return {};
    }
    const uint8_t* start = regions[region].bytes.data() + offset;
    return std::vector<uint8_t>(start, start + size);
  }
};

class RecordingDriver final : public EthosUDriver {
 public:
  Error invoke(const CommandStream& stream, const BaseAddress* regions, size_t num_regions) override;
  const char* name() const override {
    return "recording fake Ethos-U driver";
  }

  // The byte the fake writes at `offset` of `region` in invocation number `call` (0-based).
  static uint8_t pattern_byte(uint32_t region, size_t offset, size_t call);

  // invoke() returns `error` (after recording, without writing the pattern) from now on.
  void fail_with(Error error) {
    error_ = error;
  }

  const std::vector<Invocation>& invocations() const {
    return invocations_;
  }
  void clear() {
    invocations_.clear();
  }

 private:
  std::vector<Invocation> invocations_;
  Error error_ = Error::Ok;
};

}  // namespace testing
}  // namespace ethosu
}  // namespace etarm
