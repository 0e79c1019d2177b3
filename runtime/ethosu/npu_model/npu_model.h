// A functional model of the Ethos-U55 and Ethos-U65 NPUs: runs a Vela command stream (the
// COP1 driver payload) against the base-address regions, computing what the hardware
// computes, bit for bit, for the operations it models. Timing is not modelled.
//
// Commands run strictly in order: register writes update the register file, operations
// (convolution, depthwise, pooling, elementwise, DMA) execute completely when they are
// issued, waits are satisfied by construction. Any problem (an unknown command, a field the
// command set does not allow, an access outside a region, a weight stream that does not
// decode, an unmodelled feature) stops the run with a Status naming the command and its
// byte offset; nothing in the stream can make the model read or write outside the regions.
//
// No exceptions or RTTI; the only memory besides the object itself (which holds the NPU's
// internal SHRAM) is the workspace: a fixed buffer, or the heap when none is given.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/ethosu/npu_model/accelerator.h"
#include "runtime/ethosu/npu_model/accumulators.h"
#include "runtime/ethosu/npu_model/chain_buffers.h"
#include "runtime/ethosu/npu_model/command_stream.h"
#include "runtime/ethosu/npu_model/hazards.h"
#include "runtime/ethosu/npu_model/memory.h"
#include "runtime/ethosu/npu_model/registers.h"
#include "runtime/ethosu/npu_model/status.h"
#include "runtime/ethosu/npu_model/weight_layout_u85.h"
#include "runtime/ethosu/npu_model/workspace.h"

namespace etarm {
namespace ethosu {
namespace npu_model {

// What runs exercised, for coverage reports: operations by kind and the features they used.
enum class Feature {
  kConv,
  kDepthwise,
  kPoolMax,
  kPoolAverage,
  kPoolReduceSum,
  kMul,
  kAdd,
  kSub,
  kMin,
  kMax,
  kLeakyRelu,
  kAbs,
  kClz,
  kShr,
  kShl,
  kDma,
  kDmaToShram,
  kLookUpTable,
  kUpscaleNearest,
  kUpscaleZeros,
  kNhcwb16,
  kInt16Ifm,
  kInt32Ifm,
  kIfm2Broadcast,
  kIfm2Scalar,
  kOperandScaling32,
  kTwoCores,
  kPartKernelFirst,
  kDilation,
  kCount,
};
const char* feature_name(Feature feature);

// Counts of what the last run did.
struct RunCounts {
  size_t commands = 0;
  size_t operations = 0;  // convolution, depthwise, pooling and elementwise operations
  size_t dmas = 0;
  size_t features[static_cast<size_t>(Feature::kCount)] = {};
};

class NpuModel {
 public:
  // The largest SHRAM of a supported configuration (one core's: 48 KiB).
  static constexpr size_t kMaxShramBytes = 48 * 1024;

  // `accelerator` may be nullptr (an unknown configuration): run() then fails.
  // `workspace` (optional) is the fixed work memory; without it the heap is used.
  explicit NpuModel(const Accelerator* accelerator, uint8_t* workspace = nullptr, size_t workspace_size = 0)
      : accelerator_(accelerator), workspace_(workspace, workspace_size) {}

  // Runs the driver payload `payload[0, size)` with `regions` as base addresses 0..n-1.
  Status run(const uint8_t* payload, size_t size, const Region* regions, size_t num_regions);

  // Caps the steps (multiply-accumulates, elements, bytes) of one operation: an operation
  // above it fails instead of running for a very long time (a watchdog for fuzzing and for
  // garbled streams on small devices). 0, the default, is no limit.
  void set_work_limit(uint64_t steps) {
    work_limit_ = steps;
  }

  const Accelerator* accelerator() const {
    return accelerator_;
  }
  const RunCounts& counts() const {
    return counts_;
  }
  // Tells `observer` (nullptr: no one) of every U85 convolution's weights as decoded: how a
  // test holds the decoding against Vela's encoder.
  void set_weight_observer_u85(WeightObserverU85* observer) {
    weight_observer_ = observer;
  }
  // The most work memory one operation needed so far.
  size_t workspace_peak() const {
    return workspace_.peak();
  }

 private:
  Status execute(const Command& command, const Memory& memory);
  Status execute_u85(const Command& command, const Memory& memory);  // npu_model_u85.cc
  void count_features(const Command& command);
  // Follows `command` (just run, its accesses in footprint_) in the hazard checker.
  Status check_hazards(const Command& command);

  const Accelerator* accelerator_;
  RegisterFile regs_;
  Workspace workspace_;
  ChainBuffers chains_;
  Accumulators accumulators_;
  RunCounts counts_;
  uint64_t work_limit_ = 0;
  WeightObserverU85* weight_observer_ = nullptr;
  HazardChecker hazards_;
  Footprint footprint_;  // what the current command touched
  bool ofm_chained_ = false;  // the last kernel's OFM went to a chaining buffer (U85)
  uint8_t shram_[kMaxShramBytes] = {};
};

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
