// The interface between the EthosUBackend delegate and whatever runs a Vela command
// stream: the Ethos-U core driver on hardware, a simulator, or a test double.
//
// The delegate prepares everything an invocation needs (the command stream, the base
// address of every memory region it refers to, inputs already copied into the scratch
// arena, or in the input region of a direct-drive stream) and calls EthosUDriver::invoke
// once per delegate execution; when invoke returns Error::Ok the outputs must be in their
// region. docs/ethosu_runtime.md describes
// how to plug in a real driver.
#pragma once

#include <cstddef>
#include <cstdint>

#include <executorch/runtime/core/error.h>

namespace etarm {
namespace ethosu {

using executorch::runtime::Error;

// Vela's base-address regions (the indices the command stream's region fields use).
enum Region : uint32_t {
  kRegionWeights = 0,      // encoded weights, biases, LUTs: read-only, inside the payload
  kRegionScratch = 1,      // the arena: inputs, outputs and intermediates
  kRegionFastScratch = 2,  // Vela's fast scratch (Dedicated_Sram memory modes); size 0 otherwise
  // Ethos-U85 direct drive (Vela --separate-io-regions, COP2 streams): the inputs and the
  // outputs each in a region of their own, not in the arena; size 0 otherwise.
  kRegionInputs = 3,
  kRegionOutputs = 4,
  kNumRegions = 5,
};

// Base addresses and regions the NPU reads are aligned to this many bytes.
constexpr size_t kNpuAlignment = 16;

// Vela's command stream (driver actions, starting with the "COP1" or "COP2" header), exactly
// as the payload's cmd_data block holds it. 16-byte aligned.
struct CommandStream {
  const uint8_t* data;
  size_t size;
};

// One base-address region. `address` is a CPU pointer (a driver on a system whose NPU sees
// memory at other addresses translates it). Region 0 is read-only for the NPU. An unused
// region (fast scratch without Dedicated_Sram) has address nullptr and size 0.
struct BaseAddress {
  uint8_t* address;
  size_t size;
};

class EthosUDriver {
 public:
  // Runs `stream` to completion on the NPU, with `regions[i]` as base address i. Blocking:
  // the delegate copies the outputs out of the arena as soon as this returns Ok. Cache
  // maintenance (cleaning the arena before, invalidating it after) is the driver's job.
  // Any error is passed on to ExecuTorch as the delegate's execute() result.
  virtual Error invoke(const CommandStream& stream, const BaseAddress* regions, size_t num_regions) = 0;

  // A short name for log messages ("ethos-u core driver", "recording fake", ...).
  virtual const char* name() const {
    return "Ethos-U driver";
  }

 protected:
  // Drivers are owned by the platform; the delegate never deletes one.
  ~EthosUDriver() = default;
};

// Installs the driver every EthosUBackend execution uses (nullptr uninstalls it). Without
// a driver, programs still load but execute() fails with Error::NotSupported. Not
// thread-safe: install it during start-up, before any method executes. Returns the
// previously installed driver.
EthosUDriver* set_driver(EthosUDriver* driver);

// The installed driver, or nullptr.
EthosUDriver* driver();

}  // namespace ethosu
}  // namespace etarm
