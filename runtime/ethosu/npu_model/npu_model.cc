#include "runtime/ethosu/npu_model/npu_model.h"

#include <cstring>

#include "runtime/ethosu/npu_model/command_stream.h"
#include "runtime/ethosu/npu_model/isa.h"
#include "runtime/ethosu/npu_model/operation.h"

namespace etarm {
namespace ethosu {
namespace npu_model {

Status NpuModel::run(const uint8_t* payload, size_t size, const Region* regions, size_t num_regions) {
  counts_ = RunCounts();
  if (accelerator_ == nullptr) {
    return Status::error(Fault::kConfigMismatch, "the NPU model was configured with an unknown accelerator");
  }
  if (num_regions > kMaxRegions) {
    return Status::error(Fault::kMalformedStream, "%zu regions given; the NPU addresses %u", num_regions,
                         static_cast<unsigned>(kMaxRegions));
  }
  DriverPayload header;
  NPU_MODEL_RETURN_IF_ERROR(parse_driver_payload(payload, size, &header));
  if (header.has_config && accelerator_for_config(header.config) != accelerator_) {
    const Accelerator* compiled_for = accelerator_for_config(header.config);
    return Status::error(Fault::kConfigMismatch, "the command stream was compiled for %s (CONFIG 0x%08x); this NPU is %s",
                         compiled_for != nullptr ? compiled_for->name : "an unknown NPU",
                         static_cast<unsigned>(header.config),
                         accelerator_->name);
  }
  regs_.reset();
  std::memset(shram_, 0, sizeof(shram_));
  const Memory memory(regions, num_regions, shram_, accelerator_->shram_bytes());

  CommandReader reader(payload, header.commands_begin, header.commands_end);
  while (!reader.done()) {
    Command command;
    NPU_MODEL_RETURN_IF_ERROR(reader.next(&command));
    ++counts_.commands;
    if (!command.is_long && command.opcode == static_cast<uint16_t>(Cmd0::kStop)) {
      return Status();
    }
    Status s = execute(command, memory);
    workspace_.release();
    if (!s.ok()) {
      s.at_command(command.name(), command.offset);
      return s;
    }
  }
  return Status::error(Fault::kMalformedStream, "the command stream ends at byte %zu without NPU_OP_STOP",
                       header.commands_end);
}

Status NpuModel::execute(const Command& command, const Memory& memory) {
  if (command.is_long || command.opcode >= kFirstRegisterOpcode) {
    regs_.write(command);
    return Status();
  }
  const OperationContext ctx{regs_, memory, *accelerator_, workspace_, work_limit_};
  switch (static_cast<Cmd0>(command.opcode)) {
    case Cmd0::kConv:
      ++counts_.operations;
      return run_convolution(ctx, false);
    case Cmd0::kDepthwise:
      ++counts_.operations;
      return run_convolution(ctx, true);
    case Cmd0::kPool:
      ++counts_.operations;
      return run_pooling(ctx, static_cast<PoolMode>(field(command.param, 0, 3)));
    case Cmd0::kElementwise:
      ++counts_.operations;
      return run_elementwise(ctx, static_cast<ElementwiseMode>(field(command.param, 0, 6)));
    case Cmd0::kDmaStart:
      ++counts_.dmas;
      return run_dma(ctx);
    case Cmd0::kIrq:
    case Cmd0::kDmaWait:
    case Cmd0::kKernelWait:
    case Cmd0::kPmuMask:
    default:
      // Synchronisation and profiling: nothing to do when every command completes in order.
      return Status();
  }
}

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
