// EthosUBackend: ExecuTorch's delegate for partitions etarm compiled for Ethos-U NPUs.
//
// init() validates the payload (payload.h) and sets up the scratch arena; execute() copies
// the inputs into the arena, runs the command stream through the installed EthosUDriver
// (driver.h) and copies the outputs back. The library registers the backend under
// kBackendId from a static initialiser (link it with alwayslink); docs/ethosu_runtime.md.
#pragma once

#include <executorch/runtime/backend/interface.h>

#include "runtime/ethosu/arena.h"
#include "runtime/ethosu/driver.h"
#include "runtime/ethosu/payload.h"

namespace etarm {
namespace ethosu {

// The id python/etarm/ethosu/backend.py writes into the .pte.
constexpr const char* kBackendId = "EthosUBackend";

class EthosUBackend final : public executorch::runtime::BackendInterface {
 public:
  bool is_available() const override;
  executorch::runtime::Result<executorch::runtime::DelegateHandle*> init(
      executorch::runtime::BackendInitContext& context, executorch::runtime::FreeableBuffer* processed,
      executorch::runtime::ArrayRef<executorch::runtime::CompileSpec> compile_specs) const override;
  Error execute(executorch::runtime::BackendExecutionContext& context, executorch::runtime::DelegateHandle* handle,
                executorch::runtime::Span<executorch::runtime::EValue*> args) const override;
  void destroy(executorch::runtime::DelegateHandle* handle) const override;
};

// The result of the static registration (Error::Ok once registered). Calling it from the
// application also keeps the registration linked in where alwayslink is not available.
Error registration_status();

// What a delegate handle holds, for tests and diagnostics: the parsed payload, the arena
// and where each region lives. `handle` is what init() returned.
struct HandleInfo {
  Payload payload;
  BaseAddress regions[kNumRegions];
};
HandleInfo handle_info(const executorch::runtime::DelegateHandle* handle);

}  // namespace ethosu
}  // namespace etarm
