#include "runtime/ethosu/npu_model/npu_model_driver.h"

#include <executorch/runtime/platform/log.h>

namespace etarm {
namespace ethosu {

using npu_model::Fault;

Error to_error(Fault fault) {
  switch (fault) {
    case Fault::kNone:
      return Error::Ok;
    case Fault::kUnsupported:
    case Fault::kConfigMismatch:
      return Error::NotSupported;
    case Fault::kOutOfMemory:
      return Error::MemoryAllocationFailed;
    case Fault::kMalformedStream:
    case Fault::kOutOfBounds:
    case Fault::kBadWeights:
    case Fault::kHazard:
    default:
      return Error::InvalidProgram;
  }
}

NpuModelDriver::NpuModelDriver(const char* accelerator, uint8_t* workspace, size_t workspace_size)
    : model_(npu_model::find_accelerator(accelerator), workspace, workspace_size) {}

Error NpuModelDriver::invoke(const CommandStream& stream, const BaseAddress* regions, size_t num_regions) {
  npu_model::Region model_regions[npu_model::kMaxRegions] = {};
  const size_t n = num_regions < npu_model::kMaxRegions ? num_regions : npu_model::kMaxRegions;
  for (size_t r = 0; r < n; ++r) {
    model_regions[r] = npu_model::Region{regions[r].address, regions[r].size, r != kRegionWeights};
  }
  last_error_ = model_.run(stream.data, stream.size, model_regions, n);
  if (!last_error_.ok()) {
    ET_LOG(Error, "%s: %s", name(), last_error_.message());
  }
  return to_error(last_error_.fault());
}

}  // namespace ethosu
}  // namespace etarm
