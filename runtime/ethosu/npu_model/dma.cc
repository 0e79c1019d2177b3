// NPU_OP_DMA_START: copies DMA0_LEN bytes from DMA0_SRC in the source region to DMA0_DST in
// the destination region, at once (the model runs commands in order; hazards.h checks that
// the stream waits where the hardware, which runs DMAs beside kernels, would need it). A
// destination in internal mode is the NPU's SHRAM (how look-up tables get there). Ethos-U65
// streams may write 2D/3D destinations: DMA0_SIZE0 rows of DMA0_LEN bytes, each DMA0_SKIP0
// bytes apart after the previous row's end, and DMA0_SIZE1 such planes with DMA0_SKIP1; the
// source stays contiguous.
#include "runtime/ethosu/npu_model/operation.h"

#include <cstring>

namespace etarm {
namespace ethosu {
namespace npu_model {

Status run_dma(const OperationContext& ctx) {
  const RegisterFile& regs = ctx.regs;
  const uint16_t src_region_reg = regs.get(Cmd0::kDma0SrcRegion);
  const uint16_t dst_region_reg = regs.get(Cmd0::kDma0DstRegion);
  const uint32_t src_region = field(src_region_reg, 0, 3);
  const uint32_t dst_region = field(dst_region_reg, 0, 3);
  const bool src_internal = field(src_region_reg, 8, 1) != 0;
  const bool dst_internal = field(dst_region_reg, 8, 1) != 0;
  const uint32_t src_stride_mode = field(src_region_reg, 9, 2);
  const uint32_t dst_stride_mode = field(dst_region_reg, 9, 2);
  if (src_internal) {
    return Status::error(Fault::kUnsupported, "DMA from the NPU's internal memory");
  }
  if (src_stride_mode != 0) {
    return Status::error(Fault::kUnsupported, "a strided DMA source (stride mode %u)",
                         static_cast<unsigned>(src_stride_mode));
  }
  if (dst_stride_mode > 2) {
    return Status::error(Fault::kMalformedStream, "DMA0_DST_REGION has the reserved stride mode 3");
  }
  const uint64_t src = regs.address(Cmd1::kDma0Src);
  const uint64_t dst = regs.address(Cmd1::kDma0Dst);
  const uint64_t len = regs.address(Cmd1::kDma0Len);
  const uint64_t rows = dst_stride_mode >= 1 ? uint64_t{regs.get(Cmd0::kDma0Size0)} : 1;
  const uint64_t planes = dst_stride_mode == 2 ? uint64_t{regs.get(Cmd0::kDma0Size1)} : 1;
  const uint64_t skip0 = dst_stride_mode >= 1 ? regs.address(Cmd1::kDma0Skip0) : 0;
  const uint64_t skip1 = dst_stride_mode == 2 ? regs.address(Cmd1::kDma0Skip1) : 0;
  if (rows == 0 || planes == 0) {
    return Status();
  }
  if (len > UINT64_MAX / rows / planes) {
    return Status::error(Fault::kMalformedStream, "DMA size overflows");
  }
  const uint64_t total = len * rows * planes;
  NPU_MODEL_RETURN_IF_ERROR(check_work(ctx, "DMA", {total}));

  uint8_t* from = nullptr;
  NPU_MODEL_RETURN_IF_ERROR(ctx.memory.bytes(src_region, src, total, false, "DMA source", &from));
  // Vela's definitions: skip0 = row pitch - len, skip1 = plane pitch - len * rows.
  const uint64_t row_pitch = len + skip0;
  const uint64_t plane_pitch = len * rows + skip1;
  for (uint64_t p = 0; p < planes; ++p) {
    for (uint64_t r = 0; r < rows; ++r) {
      const uint64_t at = dst + p * plane_pitch + r * row_pitch;
      uint8_t* to = nullptr;
      if (dst_internal) {
        NPU_MODEL_RETURN_IF_ERROR(ctx.memory.shram_bytes(at, len, true, "DMA destination", &to));
      } else {
        NPU_MODEL_RETURN_IF_ERROR(ctx.memory.bytes(dst_region, at, len, true, "DMA destination", &to));
      }
      std::memmove(to, from, len);
      from += len;
    }
  }
  return Status();
}

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
