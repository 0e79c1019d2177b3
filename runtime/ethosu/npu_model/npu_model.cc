#include "runtime/ethosu/npu_model/npu_model.h"

#include <cstring>

#include "runtime/ethosu/npu_model/command_stream.h"
#include "runtime/ethosu/npu_model/isa.h"
#include "runtime/ethosu/npu_model/isa_u85.h"
#include "runtime/ethosu/npu_model/operation.h"
#include "runtime/ethosu/npu_model/operation_u85.h"

namespace etarm {
namespace ethosu {
namespace npu_model {

const char* feature_name(Feature feature) {
  static const char* const kNames[] = {
      "CONV",          "DEPTHWISE",       "POOL MAX",        "POOL AVERAGE",     "POOL REDUCE_SUM",
      "ELEMENTWISE MUL", "ELEMENTWISE ADD", "ELEMENTWISE SUB", "ELEMENTWISE MIN", "ELEMENTWISE MAX",
      "ELEMENTWISE LRELU", "ELEMENTWISE ABS", "ELEMENTWISE CLZ", "ELEMENTWISE SHR", "ELEMENTWISE SHL",
      "DMA",           "DMA to SHRAM",    "look-up table",   "upscale nearest",  "upscale zeros",
      "NHCWB16",       "16-bit IFM",      "32-bit IFM",      "IFM2 broadcast",   "IFM2 scalar",
      "32-bit operand scaling", "two cores", "part-kernel-first weights", "dilation",
  };
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == static_cast<size_t>(Feature::kCount), "a name per feature");
  return kNames[static_cast<size_t>(feature)];
}

void NpuModel::count_features(const Command& command) {
  auto count = [&](Feature f) { ++counts_.features[static_cast<size_t>(f)]; };
  const Cmd0 op = static_cast<Cmd0>(command.opcode);
  if (op == Cmd0::kDmaStart) {
    count(field(regs_.get(Cmd0::kDma0DstRegion), 8, 1) ? Feature::kDmaToShram : Feature::kDma);
    return;
  }
  if (op == Cmd0::kConv || op == Cmd0::kDepthwise) {
    count(op == Cmd0::kConv ? Feature::kConv : Feature::kDepthwise);
    const uint16_t ks = regs_.get(Cmd0::kKernelStride);
    if (op == Cmd0::kConv && field(ks, 2, 1)) count(Feature::kPartKernelFirst);
    if (field(ks, 3, 2)) count(Feature::kDilation);
  } else if (op == Cmd0::kPool) {
    const uint32_t mode = field(command.param, 0, 3);
    if (mode <= 2) count(static_cast<Feature>(static_cast<size_t>(Feature::kPoolMax) + mode));
  } else if (op == Cmd0::kElementwise) {
    const uint32_t mode = field(command.param, 0, 6);
    if (mode <= 9) count(static_cast<Feature>(static_cast<size_t>(Feature::kMul) + mode));
    const uint16_t b = regs_.get(Cmd0::kIfm2Broadcast);
    if (field(b, 7, 1)) count(Feature::kIfm2Scalar);
    else if (field(b, 0, 3)) count(Feature::kIfm2Broadcast);
    if ((mode == 1 || mode == 2) && field(regs_.get(Cmd0::kIfmPrecision), 8, 2) != 0) count(Feature::kOperandScaling32);
  } else {
    return;
  }
  if (field(regs_.get(Cmd0::kActivation), 0, 5) >= 16) count(Feature::kLookUpTable);
  const uint32_t upscale = field(regs_.get(Cmd0::kIfmUpscale), 0, 2);
  if (upscale == 1) count(Feature::kUpscaleNearest);
  if (upscale == 2) count(Feature::kUpscaleZeros);
  if (field(regs_.get(Cmd0::kIfmPrecision), 6, 2) == 1 || field(regs_.get(Cmd0::kOfmPrecision), 6, 2) == 1) {
    count(Feature::kNhcwb16);
  }
  const uint32_t bits = field(regs_.get(Cmd0::kIfmPrecision), 2, 2);
  if (bits == 1) count(Feature::kInt16Ifm);
  if (bits == 2) count(Feature::kInt32Ifm);
  if (field(regs_.get(Cmd0::kParallelMode), 0, 1)) count(Feature::kTwoCores);
}

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
  chains_.clear();
  accumulators_.clear();
  std::memset(shram_, 0, sizeof(shram_));
  Memory memory(regions, num_regions, shram_, accelerator_->shram_bytes());
  memory.record_to(&footprint_);
  hazards_.reset(*accelerator_);
  ofm_chained_ = false;

  const bool u85 = accelerator_->product == Product::kEthosU85;
  CommandReader reader(payload, header.commands_begin, header.commands_end,
                       u85 ? CommandSet::kEthosU85 : CommandSet::kEthosU55);
  while (!reader.done()) {
    Command command;
    NPU_MODEL_RETURN_IF_ERROR(reader.next(&command));
    ++counts_.commands;
    if (!command.is_long && command.opcode == static_cast<uint16_t>(Cmd0::kStop)) {
      return Status();
    }
    footprint_.clear();
    Status s = u85 ? execute_u85(command, memory) : execute(command, memory);
    workspace_.release();
    if (s.ok()) s = check_hazards(command);
    if (!s.ok()) {
      s.at_command(command.name(), command.offset);
      return s;
    }
  }
  return Status::error(Fault::kMalformedStream, "the command stream ends at byte %zu without NPU_OP_STOP",
                       header.commands_end);
}

Status NpuModel::check_hazards(const Command& command) {
  if (command.is_long || command.opcode >= kFirstRegisterOpcode) {
    return Status();
  }
  // The opcodes below have the same values in U85's command set; the parameter widths differ
  // (U55/U65: DMA_WAIT 1 bit, KERNEL_WAIT 2 bits, BLOCKDEP 2 bits; U85: 2, 1 and 3 bits).
  const bool u85 = accelerator_->product == Product::kEthosU85;
  switch (static_cast<Cmd0>(command.opcode)) {
    case Cmd0::kDmaStart:
      return hazards_.dma_started(command.name(), command.offset, footprint_);
    case Cmd0::kDmaWait:
      hazards_.dma_wait(field(command.param, 0, u85 ? 2 : 1));
      return Status();
    case Cmd0::kKernelWait:
      hazards_.kernel_wait(field(command.param, 0, u85 ? 1 : 2));
      return Status();
    case Cmd0::kConv:
    case Cmd0::kDepthwise:
    case Cmd0::kPool:
    case Cmd0::kElementwise:
      break;
    default:
      if (!(u85 && command.opcode == static_cast<uint16_t>(u85::Cmd0::kResize))) return Status();
      break;
  }
  const bool reordered =
      u85 && (regs_.get(u85::Cmd0::kOfmPrecision, u85::kOfmTranspose) != static_cast<uint32_t>(u85::Transpose::kHwc) ||
              regs_.get(u85::Cmd0::kOfmPrecision, u85::kOfmReverse) != static_cast<uint32_t>(u85::Reverse::kNone));
  const bool joins_chain = ofm_chained_;
  ofm_chained_ = u85 && is_chained_u85(regs_, Operand::kOfm);
  return hazards_.kernel_started(command.name(), command.offset, footprint_,
                                 field(regs_.get(Cmd0::kBlockDep), 0, u85 ? 3 : 2), reordered, joins_chain);
}

Status NpuModel::execute(const Command& command, const Memory& memory) {
  if (command.is_long || command.opcode >= kFirstRegisterOpcode) {
    regs_.write(command);
    return Status();
  }
  count_features(command);
  const OperationContext ctx{regs_, memory, *accelerator_, workspace_, work_limit_, nullptr, nullptr};
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
      // Synchronisation and profiling: every command completes in order (check_hazards follows the waits).
      return Status();
  }
}

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
