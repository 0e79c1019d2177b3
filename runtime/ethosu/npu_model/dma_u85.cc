// NPU_OP_DMA_START on Ethos-U85: copies DMA0_LEN bytes from DMA0_SRC in the source region to
// DMA0_DST in the destination region, at once (commands run in order, so Vela's waits are
// already satisfied). A destination in internal mode is the LUT RAM (how look-up tables get
// there). 2D/3D transfers (DMA0_SIZE0/1 with source and destination strides) and
// gather/scatter through an index tensor fail as not modelled.
#include <cstring>

#include "runtime/ethosu/npu_model/operation_u85.h"

namespace etarm {
namespace ethosu {
namespace npu_model {

Status run_dma_u85(const OperationContext& ctx) {
  using u85::Cmd0;
  using u85::Cmd1;
  const RegisterFile& regs = ctx.regs;
  if (regs.get(Cmd0::kDma0SrcRegion, u85::kDmaIdxMode) != 0 || regs.get(Cmd0::kDma0DstRegion, u85::kDmaIdxMode) != 0) {
    return Status::error(Fault::kUnsupported, "gather/scatter DMAs (index mode) are not modelled yet");
  }
  const uint32_t stride_mode = regs.get(Cmd0::kDma0SrcRegion, u85::kDmaStrideMode);
  if (stride_mode != static_cast<uint32_t>(u85::DmaStrideMode::k1D)) {
    return Status::error(Fault::kUnsupported, "%uD DMAs are not modelled yet", static_cast<unsigned>(stride_mode) + 1);
  }
  if (regs.get(Cmd0::kDma0SrcRegion, u85::kDmaRegionMode) != static_cast<uint32_t>(u85::DmaRegionMode::kExternal)) {
    return Status::error(Fault::kUnsupported, "DMA from the NPU's internal memory");
  }
  const uint32_t src_region = regs.get(Cmd0::kDma0SrcRegion, u85::kRegion);
  const uint32_t dst_region = regs.get(Cmd0::kDma0DstRegion, u85::kRegion);
  const bool dst_internal =
      regs.get(Cmd0::kDma0DstRegion, u85::kDmaRegionMode) == static_cast<uint32_t>(u85::DmaRegionMode::kInternal);
  const uint64_t src = regs.address(Cmd1::kDma0Src);
  const uint64_t dst = regs.address(Cmd1::kDma0Dst);
  const uint64_t len = regs.address(Cmd1::kDma0Len);
  NPU_MODEL_RETURN_IF_ERROR(check_work(ctx, "DMA", {len}));
  uint8_t* from = nullptr;
  NPU_MODEL_RETURN_IF_ERROR(ctx.memory.bytes(src_region, src, len, false, "DMA source", &from));
  uint8_t* to = nullptr;
  if (dst_internal) {
    NPU_MODEL_RETURN_IF_ERROR(ctx.memory.shram_bytes(dst, len, "DMA destination (LUT RAM)", &to));
  } else {
    NPU_MODEL_RETURN_IF_ERROR(ctx.memory.bytes(dst_region, dst, len, true, "DMA destination", &to));
  }
  std::memmove(to, from, len);
  return Status();
}

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
