// NpuModelDriver: the NPU model behind the EthosUBackend delegate's driver interface, so a
// .pte with Ethos-U partitions runs unchanged on a host or a Cortex-M without an NPU:
//
//   static etarm::ethosu::NpuModelDriver npu("ethos-u55-128");
//   etarm::ethosu::set_driver(&npu);
//
// Region 0 (the weights inside the payload) is read-only for the model, the others
// writable. A stream compiled for another configuration fails with NotSupported; a corrupt
// stream or an access outside the regions with InvalidProgram; the reason is logged and
// kept in last_error().
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/ethosu/driver.h"
#include "runtime/ethosu/npu_model/npu_model.h"

namespace etarm {
namespace ethosu {

class NpuModelDriver final : public EthosUDriver {
 public:
  // `accelerator`: "ethos-u55-32/64/128/256", "ethos-u65-256/512". `workspace` (optional):
  // fixed work memory for the model (bare metal); without it the model uses the heap.
  explicit NpuModelDriver(const char* accelerator, uint8_t* workspace = nullptr, size_t workspace_size = 0);

  Error invoke(const CommandStream& stream, const BaseAddress* regions, size_t num_regions) override;
  const char* name() const override {
    return "Ethos-U NPU model";
  }

  // The reason the last invoke failed ("" after a success).
  const char* last_error() const {
    return last_error_.message();
  }
  const npu_model::NpuModel& model() const {
    return model_;
  }

 private:
  npu_model::NpuModel model_;
  npu_model::Status last_error_;
};

// The ExecuTorch error a model failure becomes.
Error to_error(npu_model::Fault fault);

}  // namespace ethosu
}  // namespace etarm
