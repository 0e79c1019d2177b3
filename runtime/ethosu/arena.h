// Where the EthosUBackend's scratch arena (region 1) and fast scratch (region 2) live.
//
// By default both come from the runtime allocator ExecuTorch hands the delegate at init
// (one arena per delegate, alive as long as the method). A platform whose NPU must use
// particular memory (an SRAM the NPU reaches fast, the on-chip SRAM behind Ethos-U65/U85's
// second AXI port for Dedicated_Sram memory modes) installs an ArenaProvider.
#pragma once

#include <cstddef>
#include <cstdint>

#include <executorch/runtime/core/error.h>

namespace etarm {
namespace ethosu {

using executorch::runtime::Error;

class ArenaProvider {
 public:
  // Memory for `region` (kRegionScratch or kRegionFastScratch) of `size` bytes aligned to
  // `alignment`, kept until release(). Return Error::Ok and set *memory, or Error::Ok with
  // *memory = nullptr to let the delegate use the runtime allocator, or an error
  // (e.g. MemoryAllocationFailed) to make the delegate's init fail with it.
  virtual Error acquire(uint32_t region, size_t size, size_t alignment, void** memory) = 0;

  // Gives back what acquire() handed out when the delegate is destroyed.
  virtual void release(uint32_t region, void* memory) {
    (void)region;
    (void)memory;
  }

 protected:
  ~ArenaProvider() = default;
};

// Installs the provider used by every later delegate init (nullptr: the runtime
// allocator for everything, the default). Returns the previous one. Not thread-safe.
ArenaProvider* set_arena_provider(ArenaProvider* provider);

// The installed provider, or nullptr.
ArenaProvider* arena_provider();

// Fixed buffers shared by every delegate: delegates execute one at a time and keep nothing
// in the arena between executions (inputs are copied in, outputs out, on each call), so
// one scratch buffer as large as the largest delegate's scratch_size serves them all.
// A region without a buffer (nullptr) falls back to the runtime allocator; a buffer too
// small or misaligned fails the init with MemoryAllocationFailed.
class StaticArenaProvider final : public ArenaProvider {
 public:
  StaticArenaProvider(uint8_t* scratch, size_t scratch_size, uint8_t* fast_scratch = nullptr,
                      size_t fast_scratch_size = 0)
      : scratch_(scratch), scratch_size_(scratch_size), fast_(fast_scratch), fast_size_(fast_scratch_size) {}

  Error acquire(uint32_t region, size_t size, size_t alignment, void** memory) override;

 private:
  uint8_t* scratch_;
  size_t scratch_size_;
  uint8_t* fast_;
  size_t fast_size_;
};

}  // namespace ethosu
}  // namespace etarm
