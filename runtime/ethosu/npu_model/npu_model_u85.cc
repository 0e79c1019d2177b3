// The Ethos-U85 side of NpuModel: its command set's operations. Register writes go to the
// same register file as U55's (the U85 opcodes index it); operations not modelled yet stop
// the run with kUnsupported naming the operation (run() adds the command and offset).
#include "runtime/ethosu/npu_model/isa_u85.h"
#include "runtime/ethosu/npu_model/npu_model.h"
#include "runtime/ethosu/npu_model/operation_u85.h"

namespace etarm {
namespace ethosu {
namespace npu_model {

Status NpuModel::execute_u85(const Command& command, const Memory& memory) {
  if (command.is_long) {
    if (command.opcode == static_cast<uint16_t>(u85::Cmd1::kBranch)) {
      return Status::error(Fault::kUnsupported, "branches are not modelled yet");
    }
    regs_.write(command);
    return Status();
  }
  if (command.opcode >= kFirstRegisterOpcode) {
    regs_.write(command);
    return Status();
  }
  const OperationContext ctx{regs_,       memory,   *accelerator_,  workspace_,
                             work_limit_, &chains_, &accumulators_, weight_observer_};
  switch (static_cast<u85::Cmd0>(command.opcode)) {
    case u85::Cmd0::kIrq:
    case u85::Cmd0::kDmaWait:
    case u85::Cmd0::kKernelWait:
    case u85::Cmd0::kPmuMask:
      // Synchronisation and profiling: every command completes in order (check_hazards follows the waits).
      return Status();
    case u85::Cmd0::kElementwise:
      ++counts_.operations;
      accumulators_.drop_written();  // not kept (below: matmul and resize): a later KEEP is refused
      return run_elementwise_u85(ctx, static_cast<u85::ElementwiseMode>(
                                          u85::param_field(command.param, u85::kElementwiseMode)));
    case u85::Cmd0::kConv:
      ++counts_.operations;
      if (u85::param_field(command.param, u85::kConvWeightsIfm2) != 0) {
        accumulators_.drop_written();
        return run_matmul_u85(ctx);
      }
      return run_convolution_u85(ctx, false);
    case u85::Cmd0::kDepthwise:
      ++counts_.operations;
      return run_convolution_u85(ctx, true);
    case u85::Cmd0::kDmaStart:
      ++counts_.dmas;
      return run_dma_u85(ctx);
    case u85::Cmd0::kPool:
      ++counts_.operations;
      return run_pooling_u85(ctx, static_cast<u85::PoolMode>(u85::param_field(command.param, u85::kPoolMode)));
    case u85::Cmd0::kResize:
      ++counts_.operations;
      accumulators_.drop_written();
      return run_resize_u85(ctx, static_cast<u85::ResizeMode>(u85::param_field(command.param, u85::kResizeMode)));
    default:
      return Status::error(Fault::kUnsupported, "not modelled yet on Ethos-U85");
  }
}

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
