// NPU_OP_CONV and NPU_OP_DEPTHWISE on Ethos-U85: the arithmetic of U55's (convolution_window_sum(), in
// convolution.cc) with U85's weight order (weight_layout_u85.h) and scale records:
//   32-bit accumulators: bytes 0..3 the bias (two's complement), 4..7 the scale (31 bits),
//                        byte 8 the shift (bits 0..5);
//   48-bit accumulators: bytes 0..5 the bias, 6..7 the scale (15 bits), byte 8 the shift;
// one 10-byte record per OFM channel (Vela pads the count to a multiple of 16). Rounding is
// OFM_SCALE's. ACC_FORMAT's input mode starts the accumulators at 0 (RESET) or at the previous
// operation's (KEEP: Vela's average pools as chains of 1x1 depthwise convolutions, one window
// tap each, of which only the last writes its OFM); with output DISABLE they are kept for the
// next operation, without the bias, which the output stage adds where an OFM is written
// (accumulator_modes_u85.cc; a KEEP after a convolution that wrote its OFM is not modelled). An
// OFM may be 64-bit (Vela's int48 accumulators, with records of scale 1, for a POOL to read
// back as IFM2). Weights in the standard (mlw) or fast format (fwd_decoder.h), dense or 2:4
// sparse, split over the configuration's weight decoders (one per core: ethos-u85-512 has 2,
// -1024 and -2048 have 4); 8- and 16-bit IFMs. (A CONV with weights from IFM2 is a matmul:
// matmul_u85.cc.)
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


// Each weight decoder's stream registers: WEIGHT_BASE/LENGTH, then WEIGHT1..3_BASE/LENGTH.
constexpr u85::Cmd1 kWeightBases[] = {u85::Cmd1::kWeightBase, u85::Cmd1::kWeight1Base, u85::Cmd1::kWeight2Base,
                                      u85::Cmd1::kWeight3Base};
constexpr u85::Cmd1 kWeightLengths[] = {u85::Cmd1::kWeightLength, u85::Cmd1::kWeight1Length,
                                        u85::Cmd1::kWeight2Length, u85::Cmd1::kWeight3Length};
constexpr int kMaxDecoders = 4;
static_assert(kMaxDecoders <= DecodedWeightsU85::kMaxStreams, "every decoder's stream is shown to the observer");

// The bytes of weight decoder `d`'s stream.
Status weight_stream_bytes(const OperationContext& ctx, int d, const uint8_t** bytes, size_t* length) {
  const RegisterFile& regs = ctx.regs;
  const uint32_t region = regs.get(u85::Cmd0::kWeightRegion, u85::kRegion);
  const uint64_t base = regs.address(kWeightBases[d]);
  *length = static_cast<uint32_t>(regs.get(kWeightLengths[d]));
  uint8_t* p = nullptr;
  static const char* const kNames[] = {"WEIGHT", "WEIGHT1", "WEIGHT2", "WEIGHT3"};
  NPU_MODEL_RETURN_IF_ERROR(ctx.memory.bytes(region, base, *length, false, kNames[d], &p));
  *bytes = p;
  return Status();
}

// Splits a fast-weight stream holding `decoders` interleaved streams of `per_decoder` values
// (fast_weight_block_u85 values of each in turn; the last turn as many as are left) into
// consecutive streams.
void deinterleave(const int16_t* in, size_t per_decoder, int decoders, size_t block, int16_t* out) {
  const size_t round = block * static_cast<size_t>(decoders);
  const size_t full_rounds = per_decoder / block;
  const size_t tail = per_decoder % block;
  const size_t total = per_decoder * static_cast<size_t>(decoders);
  for (size_t i = 0; i < total; ++i) {
    size_t d;
    size_t pos;
    if (i < full_rounds * round) {
      d = i % round / block;
      pos = i / round * block + i % block;
    } else {
      const size_t j = i - full_rounds * round;
      d = j / tail;
      pos = full_rounds * block + j % tail;
    }
    out[d * per_decoder + pos] = in[i];
  }
}

Status load_weights_u85(const OperationContext& ctx, bool depthwise, bool ifm_16bit, int64_t ofm_depth,
                        int64_t ifm_depth, const KernelGeometry& k, int16_t** out) {
  const RegisterFile& regs = ctx.regs;
  WeightLayoutU85 l{};
  l.depthwise = depthwise;
  l.part_kernel_first = regs.get(u85::Cmd0::kKernelStride, u85::kWeightOrder) ==
                        static_cast<uint32_t>(u85::WeightOrder::kPartKernelFirst);
  l.ifm_16bit = ifm_16bit;
  l.sparse = regs.get(u85::Cmd0::kWeightFormat, u85::kWeightSparsity) ==
             static_cast<uint32_t>(u85::WeightSparsity::kSparse2of4);
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
  // One weight decoder per core; each takes every N-th group of 4 channels of a micro-block.
  l.decoders = ctx.accelerator.cores;
  if (l.decoders > kMaxDecoders || l.ofm_ublock_depth % (4 * l.decoders) != 0) {
    return Status::error(Fault::kUnsupported, "%d weight decoders sharing a %d-channel micro-block",
                         l.decoders, l.ofm_ublock_depth);
  }
  if (l.sparse && depthwise) {
    return Status::error(Fault::kMalformedStream, "2:4 sparse weights for a depthwise convolution");
  }
  // Vela 5.2.0's IFM block depths (ethos_u85.cpp): 2:4 sparsity doubles the depth-first
  // block of 8-bit IFMs and keeps U85-128/256's 16-deep micro-block at 64.
  if (l.part_kernel_first) {
    l.ifm_block_depth = 16;
  } else if (l.macs <= 256 && l.ofm_ublock_depth == 16 && !l.sparse) {
    l.ifm_block_depth = 32;
  } else {
    l.ifm_block_depth = l.sparse && !ifm_16bit ? 128 : 64;
  }

  int16_t* dense = nullptr;
  NPU_MODEL_RETURN_IF_ERROR(ctx.workspace.allocate(l.dense_size(), "weights", &dense));
  const size_t wanted = weight_stream_length_u85(l);  // per decoder: the same for each
  const size_t all = wanted * static_cast<size_t>(l.decoders);
  int16_t* streams = nullptr;
  NPU_MODEL_RETURN_IF_ERROR(ctx.workspace.allocate(all, "weight streams", &streams));
  size_t decoded[kMaxDecoders];
  DecodedWeightsU85 seen{};
  seen.fast = regs.get(u85::Cmd0::kWeightFormat, u85::kWeightFormat) == static_cast<uint32_t>(u85::WeightFormat::kFast);
  if (seen.fast) {
    // The fast format is one stream (WEIGHT_BASE) whatever the number of decoders.
    const uint8_t* bytes = nullptr;
    size_t length = 0;
    NPU_MODEL_RETURN_IF_ERROR(weight_stream_bytes(ctx, 0, &bytes, &length));
    seen.streams = 1;
    seen.bytes[0] = bytes;
    seen.lengths[0] = length;
    if (l.decoders == 1) {
      NPU_MODEL_RETURN_IF_ERROR(decode_fwd(bytes, length, streams, all));
    } else {
      int16_t* interleaved = nullptr;
      NPU_MODEL_RETURN_IF_ERROR(ctx.workspace.allocate(all, "interleaved weights", &interleaved));
      NPU_MODEL_RETURN_IF_ERROR(decode_fwd(bytes, length, interleaved, all));
      deinterleave(interleaved, wanted, l.decoders, fast_weight_block_u85(l), streams);
    }
    for (int d = 0; d < l.decoders; ++d) decoded[d] = wanted;
  } else {
    MlwScratch* scratch = nullptr;
    NPU_MODEL_RETURN_IF_ERROR(ctx.workspace.allocate(1, "weight decoder", &scratch));
    for (int d = 0; d < l.decoders; ++d) {
      const uint8_t* bytes = nullptr;
      size_t length = 0;
      NPU_MODEL_RETURN_IF_ERROR(weight_stream_bytes(ctx, d, &bytes, &length));
      NPU_MODEL_RETURN_IF_ERROR(decode_mlw(bytes, length, streams + d * wanted, wanted, &decoded[d], scratch));
      seen.bytes[d] = bytes;
      seen.lengths[d] = length;
    }
    seen.streams = l.decoders;
  }
  for (int d = 0; d < l.decoders; ++d) {
    l.decoder = d;
    NPU_MODEL_RETURN_IF_ERROR(place_weights_u85(l, streams + d * wanted, decoded[d], dense));
  }
  if (ctx.weight_observer != nullptr) {
    seen.layout = l;
    seen.dense = dense;
    ctx.weight_observer->weights_decoded(seen);
  }
  *out = dense;
  return Status();
}

// The OFM from the accumulators: each channel's bias (its record) and the output stage, then
// stored; a 64-bit OFM (Vela writes int48 accumulators out for a later operation to read as
// IFM2) keeps the whole scaled value.
Status finish_convolution_u85(const OperationContext& ctx, const OutputStage& out, const ChannelScale* scales,
                              const OfmShape& ofm, const int64_t* accumulators) {
  const size_t count = static_cast<size_t>(ofm.h * ofm.w * ofm.c);
  const bool wide = out.ofm.elem_bytes == 8;
  int32_t* result = nullptr;
  int64_t* wide_result = nullptr;
  if (wide) {
    NPU_MODEL_RETURN_IF_ERROR(ctx.workspace.allocate(count, "OFM", &wide_result));
  } else {
    NPU_MODEL_RETURN_IF_ERROR(ctx.workspace.allocate(count, "OFM", &result));
  }
  for (size_t i = 0; i < count; ++i) {
    const int64_t oc = static_cast<int64_t>(i % static_cast<size_t>(ofm.c));
    const int64_t acc = accumulators[i] + (scales != nullptr ? scales[oc].bias : 0);
    const uint32_t scale = scales != nullptr ? scales[oc].scale : out.global_scale;
    const uint32_t shift = scales != nullptr ? scales[oc].shift : out.global_shift;
    if (wide) {
      wide_result[i] = out.finish_wide(acc, scale, shift);
    } else {
      result[i] = out.finish(acc, scale, shift);
    }
  }
  return wide ? store_wide_ofm_u85(ctx, out.ofm, ofm, wide_result) : store_ofm_u85(ctx, out.ofm, ofm, result);
}

}  // namespace

Status run_convolution_u85(const OperationContext& ctx, bool depthwise) {
  const RegisterFile& regs = ctx.regs;
  if (regs.get(u85::Cmd0::kAccFormat, u85::kAccInput) == static_cast<uint32_t>(u85::AccInput::kIfm2)) {
    return Status::error(Fault::kUnsupported, "a convolution starting from IFM2's accumulators is not modelled");
  }
  NPU_MODEL_RETURN_IF_ERROR(check_accumulator_output_u85(regs));
  const OfmShape ofm = ofm_shape(regs);
  KernelGeometry k;
  NPU_MODEL_RETURN_IF_ERROR(kernel_geometry_from_registers(regs, ofm, &k));
  OutputStage out;
  NPU_MODEL_RETURN_IF_ERROR(output_stage_u85(ctx, &out, true));
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
  const int64_t* initial = nullptr;
  NPU_MODEL_RETURN_IF_ERROR(initial_accumulators_u85(ctx, ofm, &initial));
  const size_t count = static_cast<size_t>(ofm.h * ofm.w * ofm.c);
  int64_t* accumulators = nullptr;
  NPU_MODEL_RETURN_IF_ERROR(ctx.workspace.allocate(count, "accumulators", &accumulators));
  int64_t* a = accumulators;
  for (int64_t oy = 0; oy < ofm.h; ++oy) {
    for (int64_t ox = 0; ox < ofm.w; ++ox) {
      for (int64_t oc = 0; oc < ofm.c; ++oc, ++a) {
        const int64_t start = initial != nullptr ? initial[a - accumulators] : 0;
        *a = start + convolution_window_sum(k, depthwise, ifm_c, ifm, weights, oy, ox, oc);
      }
    }
  }
  if (regs.get(u85::Cmd0::kAccFormat, u85::kAccOutput) == static_cast<uint32_t>(u85::AccOutput::kDisable)) {
    return ctx.accumulators->store(ofm.h, ofm.w, ofm.c, accumulators);  // no OFM (check_accumulator_output_u85)
  }
  ctx.accumulators->drop_written();
  return finish_convolution_u85(ctx, out, scales, ofm, accumulators);
}

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
