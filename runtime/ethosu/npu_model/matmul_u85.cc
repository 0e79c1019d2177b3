// NPU_OP_CONV with weights from IFM2 on Ethos-U85 (Vela's MATMUL): IFM2 holds the right-hand
// matrix transposed, one per OFM row, so that
//   OFM (y, x, c) = sum over k < IFM_DEPTH of (IFM (y, x, k) - zero point) * (IFM2 (y, c, k) - zero point)
// (Vela folds TOSA's batch and rows into H, the columns of the left matrix are W, and IFM2's W
// runs over the OFM channels). A 1x1 kernel without padding; then the output stage with the
// global OFM_SCALE or per-channel records (bias added), and the OFM transpose. Accumulator
// modes and chained operands fail as not modelled.
#include "runtime/ethosu/npu_model/operation_u85.h"

namespace etarm {
namespace ethosu {
namespace npu_model {
namespace {

// The dense h x w x depth block of `fm` with the zero point removed.
Status load_operand(const OperationContext& ctx, const FeatureMap& fm, int64_t h, int64_t w, int64_t depth,
                    const char* what, int32_t** out) {
  NPU_MODEL_RETURN_IF_ERROR(check_work(ctx, what, {static_cast<uint64_t>(h), static_cast<uint64_t>(w),
                                                   static_cast<uint64_t>(depth)}));
  int32_t* values = nullptr;
  NPU_MODEL_RETURN_IF_ERROR(ctx.workspace.allocate(static_cast<size_t>(h * w * depth), what, &values));
  NPU_MODEL_RETURN_IF_ERROR(load_feature_map(fm, h, w, depth, values));
  for (int64_t i = 0; i < h * w * depth; ++i) {
    values[i] -= fm.zero_point;
  }
  *out = values;
  return Status();
}

}  // namespace

Status run_matmul_u85(const OperationContext& ctx) {
  const RegisterFile& regs = ctx.regs;
  if (regs.get(u85::Cmd0::kAccFormat, u85::kAccInput) != static_cast<uint32_t>(u85::AccInput::kReset) ||
      regs.get(u85::Cmd0::kAccFormat, u85::kAccOutput) != static_cast<uint32_t>(u85::AccOutput::kEnable)) {
    return Status::error(Fault::kUnsupported, "accumulator input/output modes of a matmul are not modelled yet");
  }
  if (regs.get(u85::Cmd0::kIfmUpscale, u85::kUpscaleMode) != 0) {
    return Status::error(Fault::kUnsupported, "IFM upscaling of a matmul is not modelled yet");
  }
  const OfmShape ofm = ofm_shape(regs);
  KernelGeometry k;
  NPU_MODEL_RETURN_IF_ERROR(kernel_geometry_from_registers(regs, ofm, &k));
  if (k.taps_h != 1 || k.taps_w != 1 || k.stride_x != 1 || k.stride_y != 1 || k.pad_top != 0 || k.pad_left != 0 ||
      k.pad_bottom != 0 || k.pad_right != 0) {
    return Status::error(Fault::kUnsupported, "a matmul with a %dx%d kernel, stride or padding is not modelled",
                         k.taps_h, k.taps_w);
  }
  if (is_chained_u85(regs, Operand::kIfm) || is_chained_u85(regs, Operand::kIfm2)) {
    return Status::error(Fault::kUnsupported, "chained matmul operands are not modelled yet");
  }
  OutputStage out;
  NPU_MODEL_RETURN_IF_ERROR(output_stage_u85(ctx, &out));
  FeatureMap ifm_map, ifm2_map;
  NPU_MODEL_RETURN_IF_ERROR(feature_map_u85(regs, ctx.memory, Operand::kIfm, &ifm_map));
  NPU_MODEL_RETURN_IF_ERROR(feature_map_u85(regs, ctx.memory, Operand::kIfm2, &ifm2_map));
  const int64_t depth = int64_t{regs.get(u85::Cmd0::kIfmDepthM1)} + 1;
  NPU_MODEL_RETURN_IF_ERROR(check_work(ctx, "matmul", {static_cast<uint64_t>(ofm.h * ofm.w * ofm.c),
                                                       static_cast<uint64_t>(depth)}));
  int32_t* a = nullptr;
  int32_t* b = nullptr;
  NPU_MODEL_RETURN_IF_ERROR(load_operand(ctx, ifm_map, ofm.h, ofm.w, depth, "IFM", &a));
  NPU_MODEL_RETURN_IF_ERROR(load_operand(ctx, ifm2_map, ofm.h, ofm.c, depth, "IFM2", &b));
  ChannelScale* scales = nullptr;
  if (out.per_channel) {
    NPU_MODEL_RETURN_IF_ERROR(load_scales_u85(ctx, ofm.c, &scales));
  }
  int32_t* result = nullptr;
  NPU_MODEL_RETURN_IF_ERROR(ctx.workspace.allocate(static_cast<size_t>(ofm.h * ofm.w * ofm.c), "OFM", &result));
  int32_t* r = result;
  for (int64_t y = 0; y < ofm.h; ++y) {
    for (int64_t x = 0; x < ofm.w; ++x) {
      const int32_t* row = a + (y * ofm.w + x) * depth;
      for (int64_t c = 0; c < ofm.c; ++c) {
        const int32_t* column = b + (y * ofm.c + c) * depth;
        int64_t acc = scales != nullptr ? scales[c].bias : 0;
        for (int64_t i = 0; i < depth; ++i) {
          acc += int64_t{row[i]} * column[i];
        }
        *r++ = scales != nullptr ? out.finish(acc, scales[c].scale, scales[c].shift) : out.finish_global(acc);
      }
    }
  }
  return store_ofm_u85(ctx, out.ofm, ofm, result);
}

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
