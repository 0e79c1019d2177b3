// NPU_OP_DMA_START on Ethos-U85: copies blocks of DMA0_LEN bytes from the source region to the
// destination region, at once (commands run in order; hazards.h checks Vela's waits).
// The source's stride mode gives the blocks: 1D one block; 2D DMA0_SIZE0 blocks, block i0 at
// i0 * DMA0_SRC_STRIDE0 / DMA0_DST_STRIDE0; 3D DMA0_SIZE1 rows of those, row i1 at
// i1 * DMA0_SRC_STRIDE1 / DMA0_DST_STRIDE1 further (strides two's complement, 40 bits).
// Gather (index mode on the source) and scatter (on the destination) replace i0 on that side
// by an int32 index read from DMA0_IDX in the DMA0_IDX_REGION: the index of block (i1, i0) is at
// i1 * (4 * DMA0_SIZE0 + DMA0_IDX_SKIP1) + 4 * i0 (Vela's int64 indices: one index per row
// and a skip of 4 over each high word). TOSA leaves an index outside [0, DMA0_IDX_MAX]
// undefined and no public document says what the hardware does: the model clamps it into that
// range rather than fault on data. A destination in internal mode is the LUT RAM (how look-up
// tables get there); a source there fails as not modelled.
#include <cstring>

#include "runtime/ethosu/npu_model/operation_u85.h"

namespace etarm {
namespace ethosu {
namespace npu_model {
namespace {

// Where block (i1, i0) is on one side of the transfer.
struct DmaSide {
  uint32_t region;
  bool internal;
  bool indexed;
  uint64_t base;
  int64_t stride0, stride1;

  uint64_t address(int64_t i1, int64_t i0_or_index) const {
    return base + static_cast<uint64_t>(i1 * stride1 + i0_or_index * stride0);
  }
};

// The int32 index of block (i1, i0), clamped to [0, max].
Status read_index(const OperationContext& ctx, int64_t i1, int64_t i0, int64_t* out) {
  const RegisterFile& regs = ctx.regs;
  const uint32_t region = regs.get(u85::Cmd0::kDma0IdxRegion, u85::kRegion);
  const int64_t size0 = regs.get(u85::Cmd0::kDma0Size0);
  const int64_t skip1 = regs.stride(u85::Cmd1::kDma0IdxSkip1);
  const uint64_t at = regs.address(u85::Cmd1::kDma0Idx) + static_cast<uint64_t>(i1 * (4 * size0 + skip1) + 4 * i0);
  uint8_t* bytes = nullptr;
  NPU_MODEL_RETURN_IF_ERROR(ctx.memory.bytes(region, at, 4, false, "DMA index", &bytes));
  const int32_t index = static_cast<int32_t>(static_cast<uint32_t>(bytes[0]) | static_cast<uint32_t>(bytes[1]) << 8 |
                                             static_cast<uint32_t>(bytes[2]) << 16 |
                                             static_cast<uint32_t>(bytes[3]) << 24);
  const int64_t max = static_cast<int64_t>(regs.get(u85::Cmd1::kDma0IdxMax) & 0x7FFFFFFFu);
  *out = index < 0 ? 0 : (index > max ? max : index);
  return Status();
}

}  // namespace

Status run_dma_u85(const OperationContext& ctx) {
  using u85::Cmd0;
  using u85::Cmd1;
  const RegisterFile& regs = ctx.regs;
  if (regs.get(Cmd0::kDma0SrcRegion, u85::kDmaRegionMode) != static_cast<uint32_t>(u85::DmaRegionMode::kExternal)) {
    return Status::error(Fault::kUnsupported, "DMA from the NPU's internal memory");
  }
  const DmaSide src{regs.get(Cmd0::kDma0SrcRegion, u85::kRegion), false,
                    regs.get(Cmd0::kDma0SrcRegion, u85::kDmaIdxMode) != 0, regs.address(Cmd1::kDma0Src),
                    regs.stride(Cmd1::kDma0SrcStride0), regs.stride(Cmd1::kDma0SrcStride1)};
  const DmaSide dst{regs.get(Cmd0::kDma0DstRegion, u85::kRegion),
                    regs.get(Cmd0::kDma0DstRegion, u85::kDmaRegionMode) ==
                        static_cast<uint32_t>(u85::DmaRegionMode::kInternal),
                    regs.get(Cmd0::kDma0DstRegion, u85::kDmaIdxMode) != 0, regs.address(Cmd1::kDma0Dst),
                    regs.stride(Cmd1::kDma0DstStride0), regs.stride(Cmd1::kDma0DstStride1)};
  if (src.indexed && dst.indexed) {
    return Status::error(Fault::kMalformedStream, "a DMA indexed on both its source and its destination");
  }
  if (dst.internal && (src.indexed || dst.indexed)) {
    return Status::error(Fault::kUnsupported, "an indexed DMA into the NPU's internal memory");
  }
  const uint32_t stride_mode = regs.get(Cmd0::kDma0SrcRegion, u85::kDmaStrideMode);
  if (stride_mode > static_cast<uint32_t>(u85::DmaStrideMode::k3D)) {
    return Status::error(Fault::kMalformedStream, "DMA0_SRC_REGION has the reserved stride mode %u",
                         static_cast<unsigned>(stride_mode));
  }
  const int64_t size0 =
      stride_mode == static_cast<uint32_t>(u85::DmaStrideMode::k1D) ? 1 : int64_t{regs.get(Cmd0::kDma0Size0)};
  const int64_t size1 =
      stride_mode == static_cast<uint32_t>(u85::DmaStrideMode::k3D) ? int64_t{regs.get(Cmd0::kDma0Size1)} : 1;
  const uint64_t len = regs.address(Cmd1::kDma0Len);
  NPU_MODEL_RETURN_IF_ERROR(check_work(ctx, "DMA", {len, static_cast<uint64_t>(size0), static_cast<uint64_t>(size1)}));
  for (int64_t i1 = 0; i1 < size1; ++i1) {
    for (int64_t i0 = 0; i0 < size0; ++i0) {
      int64_t index = i0;
      if (src.indexed || dst.indexed) {
        NPU_MODEL_RETURN_IF_ERROR(read_index(ctx, i1, i0, &index));
      }
      uint8_t* from = nullptr;
      NPU_MODEL_RETURN_IF_ERROR(
          ctx.memory.bytes(src.region, src.address(i1, src.indexed ? index : i0), len, false, "DMA source", &from));
      uint8_t* to = nullptr;
      const uint64_t at = dst.address(i1, dst.indexed ? index : i0);
      if (dst.internal) {
        NPU_MODEL_RETURN_IF_ERROR(ctx.memory.shram_bytes(at, len, true, "DMA destination (LUT RAM)", &to));
      } else {
        NPU_MODEL_RETURN_IF_ERROR(ctx.memory.bytes(dst.region, at, len, true, "DMA destination", &to));
      }
      std::memmove(to, from, len);
    }
  }
  return Status();
}

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
