// NPU_OP_CONV and NPU_OP_DEPTHWISE on Ethos-U85: the arithmetic of U55's (convolve(), in
// convolution.cc) with U85's weight order (weight_layout_u85.h) and scale records:
//   32-bit accumulators: bytes 0..3 the bias (two's complement), 4..7 the scale (31 bits),
//                        byte 8 the shift (bits 0..5);
//   48-bit accumulators: bytes 0..5 the bias, 6..7 the scale (15 bits), byte 8 the shift;
// one 10-byte record per OFM channel (Vela pads the count to a multiple of 16). Rounding is
// OFM_SCALE's. One weight decoder (ethos-u85-128/256), the standard (mlw) or fast weight
// format (fwd_decoder.h), 8-bit IFMs; 2:4 sparsity, chaining and several weight decoders fail
// as not modelled. (A CONV with weights from IFM2 is a matmul: matmul_u85.cc.)
#include "runtime/ethosu/npu_model/fwd_decoder.h"
#include "runtime/ethosu/npu_model/mlw_decoder.h"
#include "runtime/ethosu/npu_model/operation_u85.h"
#include "runtime/ethosu/npu_model/weight_layout_u85.h"

namespace etarm {
namespace ethosu {
namespace npu_model {
namespace {

// The OFM micro-block depth of each micro-block shape Vela 5.2.0 uses (ethos_u85.cpp's
// accelerator table), by total MACs; 0 where the configuration has no such micro-block.
int ofm_ublock_depth(const Accelerator& a, uint32_t microblock) {
  // U1X1, U1X2, U1X4, U2X2, U2X4, U4X4
  static const struct {
    int macs;
    int depth[6];
  } kDepths[] = {
      {128, {16, 8, 0, 0, 0, 0}},      {256, {0, 16, 8, 8, 0, 0}},     {512, {0, 0, 16, 16, 0, 0}},
      {1024, {0, 0, 32, 32, 16, 0}},   {2048, {0, 0, 64, 64, 0, 16}},
  };
  const int macs = a.macs * a.cores;
  for (const auto& d : kDepths) {
    if (d.macs == macs && microblock < 6) return d.depth[microblock];
  }
  return 0;
}


Status load_weights_u85(const OperationContext& ctx, bool depthwise, bool ifm_16bit, int64_t ofm_depth,
                        int64_t ifm_depth, const KernelGeometry& k, int16_t** out) {
  const RegisterFile& regs = ctx.regs;
  WeightLayoutU85 l{};
  l.depthwise = depthwise;
  l.part_kernel_first = regs.get(u85::Cmd0::kKernelStride, u85::kWeightOrder) ==
                        static_cast<uint32_t>(u85::WeightOrder::kPartKernelFirst);
  l.ifm_16bit = ifm_16bit;
  l.macs = ctx.accelerator.macs * ctx.accelerator.cores;
  l.ofm_depth = static_cast<int>(ofm_depth);
  l.ifm_depth = depthwise ? 1 : static_cast<int>(ifm_depth);
  l.kernel_h = k.taps_h;
  l.kernel_w = k.taps_w;
  l.dilation_x = k.dilation_x;
  l.dilation_y = k.dilation_y;
  l.stride_x = k.stride_x;
  l.stride_y = k.stride_y;
  l.ofm_block_depth = regs.get(u85::Cmd0::kOfmBlkDepthM1) + 1;
  l.ofm_ublock_depth = ofm_ublock_depth(ctx.accelerator, regs.get(u85::Cmd0::kAccFormat, u85::kMicroblock));
  if (l.ofm_ublock_depth == 0) {
    return Status::error(Fault::kMalformedStream, "ACC_FORMAT names a micro-block %s does not have",
                         ctx.accelerator.name);
  }
  l.ifm_block_depth = l.part_kernel_first ? 16 : (l.macs <= 256 && l.ofm_ublock_depth == 16) ? 32 : 64;

  int16_t* dense = nullptr;
  NPU_MODEL_RETURN_IF_ERROR(ctx.workspace.allocate(l.dense_size(), "weights", &dense));
  const size_t wanted = weight_stream_length_u85(l);
  int16_t* stream = nullptr;
  NPU_MODEL_RETURN_IF_ERROR(ctx.workspace.allocate(wanted, "weight stream", &stream));
  const uint32_t region = regs.get(u85::Cmd0::kWeightRegion, u85::kRegion);
  const uint64_t base = regs.address(u85::Cmd1::kWeightBase);
  const uint64_t length = static_cast<uint32_t>(regs.get(u85::Cmd1::kWeightLength));
  uint8_t* bytes = nullptr;
  NPU_MODEL_RETURN_IF_ERROR(ctx.memory.bytes(region, base, length, false, "WEIGHT", &bytes));
  size_t decoded = wanted;
  if (regs.get(u85::Cmd0::kWeightFormat, u85::kWeightFormat) == static_cast<uint32_t>(u85::WeightFormat::kFast)) {
    NPU_MODEL_RETURN_IF_ERROR(decode_fwd(bytes, length, stream, wanted));
  } else {
    MlwScratch* scratch = nullptr;
    NPU_MODEL_RETURN_IF_ERROR(ctx.workspace.allocate(1, "weight decoder", &scratch));
    NPU_MODEL_RETURN_IF_ERROR(decode_mlw(bytes, length, stream, wanted, &decoded, scratch));
  }
  NPU_MODEL_RETURN_IF_ERROR(place_weights_u85(l, stream, decoded, dense));
  *out = dense;
  return Status();
}

}  // namespace

Status run_convolution_u85(const OperationContext& ctx, bool depthwise) {
  const RegisterFile& regs = ctx.regs;
  if (regs.get(u85::Cmd0::kWeightFormat, u85::kWeightSparsity) != static_cast<uint32_t>(u85::WeightSparsity::kNone)) {
    return Status::error(Fault::kUnsupported, "2:4 sparse weights are not modelled yet");
  }
  if (ctx.accelerator.cores != 1) {
    return Status::error(Fault::kUnsupported, "%s's %d weight decoders are not modelled yet", ctx.accelerator.name,
                         ctx.accelerator.cores);
  }
  if (regs.get(u85::Cmd0::kAccFormat, u85::kAccInput) != static_cast<uint32_t>(u85::AccInput::kReset) ||
      regs.get(u85::Cmd0::kAccFormat, u85::kAccOutput) != static_cast<uint32_t>(u85::AccOutput::kEnable)) {
    return Status::error(Fault::kUnsupported, "accumulator input/output modes are not modelled yet");
  }
  const OfmShape ofm = ofm_shape(regs);
  KernelGeometry k;
  NPU_MODEL_RETURN_IF_ERROR(kernel_geometry_from_registers(regs, ofm, &k));
  OutputStage out;
  NPU_MODEL_RETURN_IF_ERROR(output_stage_u85(ctx, &out));
  FeatureMap ifm_map;
  NPU_MODEL_RETURN_IF_ERROR(feature_map_u85(regs, ctx.memory, Operand::kIfm, &ifm_map));
  if (ifm_map.elem_bytes > 2) {
    return Status::error(Fault::kUnsupported, "convolutions of %d-bit IFMs on Ethos-U85 are not modelled yet",
                         8 * ifm_map.elem_bytes);
  }
  const int64_t ifm_c = depthwise ? ofm.c : int64_t{regs.get(u85::Cmd0::kIfmDepthM1)} + 1;
  NPU_MODEL_RETURN_IF_ERROR(check_work(ctx, "convolution",
                                       {static_cast<uint64_t>(ofm.h * ofm.w * ofm.c), static_cast<uint64_t>(k.taps_h),
                                        static_cast<uint64_t>(k.taps_w), static_cast<uint64_t>(depthwise ? 1 : ifm_c)}));
  NPU_MODEL_RETURN_IF_ERROR(check_work(ctx, "the IFM", {static_cast<uint64_t>(k.ifm_h),
                                                        static_cast<uint64_t>(k.ifm_w), static_cast<uint64_t>(ifm_c)}));
  int32_t* ifm = nullptr;
  NPU_MODEL_RETURN_IF_ERROR(load_ifm(ctx, ifm_map, k, ifm_c, &ifm));
  int16_t* weights = nullptr;
  NPU_MODEL_RETURN_IF_ERROR(load_weights_u85(ctx, depthwise, ifm_map.elem_bytes == 2, ofm.c, ifm_c, k, &weights));
  ChannelScale* scales = nullptr;
  if (out.per_channel) {
    NPU_MODEL_RETURN_IF_ERROR(load_scales_u85(ctx, ofm.c, &scales));
  }
  int32_t* result = nullptr;
  NPU_MODEL_RETURN_IF_ERROR(ctx.workspace.allocate(static_cast<size_t>(ofm.h * ofm.w * ofm.c), "OFM", &result));
  convolve(k, ofm, depthwise, ifm_c, ifm, weights, scales, out, result);
  return store_ofm_u85(ctx, out.ofm, ofm, result);
}

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
