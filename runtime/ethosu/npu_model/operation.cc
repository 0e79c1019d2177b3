#include "runtime/ethosu/npu_model/operation.h"

#include "runtime/ethosu/npu_model/mlw_decoder.h"
#include "runtime/ethosu/npu_model/scaling.h"
#include "runtime/ethosu/npu_model/weight_layout.h"

namespace etarm {
namespace ethosu {
namespace npu_model {
namespace {

constexpr uint32_t kLutBytes = 256;     // one 8-bit table
constexpr uint32_t kLut16Bytes = 2048;  // the 16-bit table

// The tables sit in the last two SHRAM banks (eight 256-byte tables), on every
// configuration.
uint32_t lut_area_start(const Accelerator& a) {
  return a.shram_bytes() - kLut16Bytes;
}

int cores_of(const OperationContext& ctx, Status* status) {
  const uint32_t mode = field(ctx.regs.get(Cmd0::kParallelMode), 0, 1);
  const int cores = mode == 1 ? 2 : 1;
  if (cores > ctx.accelerator.cores) {
    *status = Status::error(Fault::kConfigMismatch, "PARALLEL_MODE asks for two cores; %s has one",
                            ctx.accelerator.name);
  }
  return cores;
}

}  // namespace

Status check_work(const OperationContext& ctx, const char* what, std::initializer_list<uint64_t> factors) {
  if (ctx.work_limit == 0) {
    return Status();
  }
  uint64_t work = 1;
  for (uint64_t f : factors) {
    if (f != 0 && work > ctx.work_limit / f) {
      return Status::error(Fault::kUnsupported, "%s: more than the model's limit of %llu steps per operation", what,
                           static_cast<unsigned long long>(ctx.work_limit));
    }
    work *= f;
  }
  return Status();
}

OfmShape ofm_shape(const RegisterFile& regs) {
  return OfmShape{int64_t{regs.get(Cmd0::kOfmHeightM1)} + 1, int64_t{regs.get(Cmd0::kOfmWidthM1)} + 1,
                  int64_t{regs.get(Cmd0::kOfmDepthM1)} + 1};
}

int32_t OutputStage::finish(int64_t acc, uint32_t scale, uint32_t shift) const {
  int64_t v = scale_and_round(acc, scale, shift, round) + ofm.zero_point;
  if (lut_s16_s32 != nullptr) {
    // The clip applies to the table's int16 input (Vela sets it from the table's input type);
    // the int32 result only saturates.
    const int64_t u = clamp(clamp(v, lo, hi), -32768, 32767) + 32768;
    const uint8_t* pair = lut_s16_s32 + (u >> 7) * 4;
    const int64_t base = static_cast<int16_t>(static_cast<uint16_t>(pair[0] | pair[1] << 8));
    const int64_t slope = static_cast<int16_t>(static_cast<uint16_t>(pair[2] | pair[3] << 8));
    const int64_t r = base * 128 + slope * (u & 127);
    return static_cast<int32_t>(clamp(lut_to_int16 ? (r + 64) >> 7 : r, ofm.type_min(), ofm.type_max()));
  }
  if (lut != nullptr) {
    const int64_t index = clamp(v, -128, 127) + 128;
    v = ofm.is_signed ? int64_t{static_cast<int8_t>(lut[index])} : int64_t{lut[index]};
  }
  if (wrap) {
    const int bits = ofm.elem_bytes * 8;
    const uint64_t low = static_cast<uint64_t>(v) & ((uint64_t{1} << bits) - 1);
    const bool negative = ofm.is_signed && (low >> (bits - 1)) != 0;
    return static_cast<int32_t>(negative ? static_cast<int64_t>(low) - (int64_t{1} << bits) : static_cast<int64_t>(low));
  }
  return static_cast<int32_t>(clamp(v, lo, hi));
}

int64_t OutputStage::finish_wide(int64_t acc, uint32_t scale, uint32_t shift) const {
  // Added as unsigned: wraps like scale_and_round's result rather than overflowing.
  const uint64_t v = static_cast<uint64_t>(scale_and_round(acc, scale, shift, round)) +
                     static_cast<uint64_t>(int64_t{ofm.zero_point});
  return clamp(static_cast<int64_t>(v), lo, hi);
}

Status output_stage_from_registers(const OperationContext& ctx, OutputStage* out) {
  const RegisterFile& regs = ctx.regs;
  OutputStage s{};
  NPU_MODEL_RETURN_IF_ERROR(feature_map_from_registers(regs, ctx.memory, Operand::kOfm, &s.ofm));
  const uint16_t precision = regs.get(Cmd0::kOfmPrecision);
  s.per_channel = field(precision, 8, 1) == static_cast<uint32_t>(OfmScaleMode::kPerChannel);
  const uint32_t round = field(precision, 14, 2);
  if (round > static_cast<uint32_t>(RoundMode::kNatural)) {
    return Status::error(Fault::kMalformedStream, "OFM_PRECISION has the reserved rounding mode 3");
  }
  s.round = static_cast<RoundMode>(round);
  const uint64_t ofm_scale = regs.get(Cmd1::kOfmScale);
  s.global_scale = static_cast<uint32_t>(ofm_scale);
  s.global_shift = field(ofm_scale, 32, 6);

  const uint16_t activation = regs.get(Cmd0::kActivation);
  const uint32_t function = field(activation, 0, 5);
  const uint32_t clip = field(activation, 12, 3);
  int64_t type_lo = s.ofm.type_min();
  int64_t type_hi = s.ofm.type_max();
  bool clip_signed = s.ofm.is_signed;
  switch (static_cast<ClipRange>(clip)) {
    case ClipRange::kOfmPrecision:
      break;
    case ClipRange::kForceUint8:
      type_lo = 0, type_hi = 255, clip_signed = false;
      break;
    case ClipRange::kForceInt8:
      type_lo = -128, type_hi = 127, clip_signed = true;
      break;
    case ClipRange::kForceInt16:
      type_lo = -32768, type_hi = 32767, clip_signed = true;
      break;
    default:
      return Status::error(Fault::kMalformedStream, "ACTIVATION has the reserved clip range %u",
                           static_cast<unsigned>(clip));
  }
  const uint16_t act_min = regs.get(Cmd0::kActivationMin);
  const uint16_t act_max = regs.get(Cmd0::kActivationMax);
  const int64_t min_value = clip_signed ? int64_t{static_cast<int16_t>(act_min)} : int64_t{act_min};
  const int64_t max_value = clip_signed ? int64_t{static_cast<int16_t>(act_max)} : int64_t{act_max};
  if (s.ofm.elem_bytes == 4 && clip == static_cast<uint32_t>(ClipRange::kOfmPrecision)) {
    // The 16-bit activation limits cannot describe a 32-bit range: only saturation applies.
    s.lo = type_lo;
    s.hi = type_hi;
  } else {
    s.lo = min_value > type_lo ? min_value : type_lo;
    s.hi = max_value < type_hi ? max_value : type_hi;
  }

  if (function >= static_cast<uint32_t>(ActivationFunction::kTable0) &&
      function <= static_cast<uint32_t>(ActivationFunction::kTable7)) {
    uint8_t* lut = nullptr;
    const uint32_t start = lut_area_start(ctx.accelerator) + (function - 16) * kLutBytes;
    if (s.ofm.elem_bytes == 2) {
      // A 16-bit OFM's table is the interpolating one U85 calls LUT_S16_S16: 512 (base, slope)
      // pairs of int16, the whole LUT area (so only TABLE_0 fits).
      NPU_MODEL_RETURN_IF_ERROR(ctx.memory.shram_bytes(start, kLut16Bytes, false, "16-bit look-up table", &lut));
      s.lut_s16_s32 = lut;
      s.lut_to_int16 = true;
    } else {
      NPU_MODEL_RETURN_IF_ERROR(ctx.memory.shram_bytes(start, kLutBytes, false, "look-up table", &lut));
      s.lut = lut;
    }
  } else if (function != static_cast<uint32_t>(ActivationFunction::kRelu)) {
    return Status::error(Fault::kUnsupported, "ACTIVATION function %u (built-in tanh/sigmoid) is not modelled",
                         static_cast<unsigned>(function));
  }
  *out = s;
  return Status();
}

Status kernel_geometry_from_registers(const RegisterFile& regs, const OfmShape& ofm, KernelGeometry* out) {
  KernelGeometry g{};
  const uint16_t ks = regs.get(Cmd0::kKernelStride);
  g.stride_x = static_cast<int>((field(ks, 0, 1) | (field(ks, 6, 1) << 1)) + 1);
  g.stride_y = static_cast<int>((field(ks, 1, 1) | (field(ks, 9, 1) << 1)) + 1);
  g.dilation_x = static_cast<int>(field(ks, 3, 1) + 1);
  g.dilation_y = static_cast<int>(field(ks, 4, 1) + 1);
  const int extent_h = regs.get(Cmd0::kKernelHeightM1) + 1;
  const int extent_w = regs.get(Cmd0::kKernelWidthM1) + 1;
  if ((extent_h - 1) % g.dilation_y != 0 || (extent_w - 1) % g.dilation_x != 0) {
    return Status::error(Fault::kMalformedStream, "a %dx%d kernel extent does not fit dilation %dx%d", extent_h,
                         extent_w, g.dilation_y, g.dilation_x);
  }
  g.taps_h = (extent_h - 1) / g.dilation_y + 1;
  g.taps_w = (extent_w - 1) / g.dilation_x + 1;
  g.pad_top = static_cast<int>(field(regs.get(Cmd0::kIfmPadTop), 0, 7));
  g.pad_left = static_cast<int>(field(regs.get(Cmd0::kIfmPadLeft), 0, 7));
  g.pad_right = static_cast<int>(field(regs.get(Cmd0::kIfmPadRight), 0, 8));
  g.pad_bottom = static_cast<int>(field(regs.get(Cmd0::kIfmPadBottom), 0, 8));
  g.ifm_h = (ofm.h - 1) * g.stride_y + extent_h - g.pad_top - g.pad_bottom;
  g.ifm_w = (ofm.w - 1) * g.stride_x + extent_w - g.pad_left - g.pad_right;
  if (g.ifm_h <= 0 || g.ifm_w <= 0) {
    return Status::error(Fault::kMalformedStream,
                         "the padding leaves no IFM: OFM %lldx%lld, kernel %dx%d, stride %dx%d, padding %d/%d/%d/%d",
                         static_cast<long long>(ofm.h), static_cast<long long>(ofm.w), extent_h, extent_w, g.stride_y,
                         g.stride_x, g.pad_top, g.pad_left, g.pad_bottom, g.pad_right);
  }
  const uint32_t upscale = field(regs.get(Cmd0::kIfmUpscale), 0, 2);
  if (upscale > static_cast<uint32_t>(UpscaleMode::kZeros)) {
    return Status::error(Fault::kMalformedStream, "IFM_UPSCALE has the reserved mode 3");
  }
  g.upscale = static_cast<UpscaleMode>(upscale);
  *out = g;
  return Status();
}

Status load_ifm(const OperationContext& ctx, const FeatureMap& ifm, const KernelGeometry& k, int64_t channels,
                int32_t** out) {
  const int64_t size = k.ifm_h * k.ifm_w * channels;
  int32_t* dense = nullptr;
  NPU_MODEL_RETURN_IF_ERROR(ctx.workspace.allocate(static_cast<size_t>(size), "IFM", &dense));
  if (k.upscale == UpscaleMode::kNone) {
    NPU_MODEL_RETURN_IF_ERROR(load_feature_map(ifm, k.ifm_h, k.ifm_w, channels, dense));
    for (int64_t i = 0; i < size; ++i) {
      dense[i] -= ifm.zero_point;
    }
    *out = dense;
    return Status();
  }
  const int64_t stored_h = (k.ifm_h + 1) / 2;
  const int64_t stored_w = (k.ifm_w + 1) / 2;
  int32_t* stored = nullptr;
  NPU_MODEL_RETURN_IF_ERROR(
      ctx.workspace.allocate(static_cast<size_t>(stored_h * stored_w * channels), "stored IFM", &stored));
  NPU_MODEL_RETURN_IF_ERROR(load_feature_map(ifm, stored_h, stored_w, channels, stored));
  int32_t* d = dense;
  for (int64_t y = 0; y < k.ifm_h; ++y) {
    for (int64_t x = 0; x < k.ifm_w; ++x) {
      const int32_t* s = stored + ((y / 2) * stored_w + x / 2) * channels;
      const bool zero = k.upscale == UpscaleMode::kZeros && ((y | x) & 1) != 0;
      for (int64_t c = 0; c < channels; ++c) {
        *d++ = zero ? 0 : s[c] - ifm.zero_point;
      }
    }
  }
  *out = dense;
  return Status();
}

Status load_channel_scales(const OperationContext& ctx, int64_t channels, ChannelScale** out) {
  Status status;
  const int cores = cores_of(ctx, &status);
  NPU_MODEL_RETURN_IF_ERROR(status);
  ChannelScale* scales = nullptr;
  NPU_MODEL_RETURN_IF_ERROR(ctx.workspace.allocate(static_cast<size_t>(channels), "scale records", &scales));
  ChannelScale* core_scales = nullptr;
  NPU_MODEL_RETURN_IF_ERROR(ctx.workspace.allocate(static_cast<size_t>(channels), "scale records", &core_scales));
  const uint32_t region = field(ctx.regs.get(Cmd0::kScaleRegion), 0, 3);
  for (int core = 0; core < cores; ++core) {
    const uint64_t base = ctx.regs.address(core == 0 ? Cmd1::kScaleBase : Cmd1::kScale1Base);
    const uint64_t length = field(ctx.regs.get(core == 0 ? Cmd1::kScaleLength : Cmd1::kScale1Length), 0, 20);
    const size_t count = static_cast<size_t>((channels + cores - 1 - core) / cores);
    uint8_t* bytes = nullptr;
    NPU_MODEL_RETURN_IF_ERROR(ctx.memory.bytes(region, base, length, false, core == 0 ? "SCALE" : "SCALE1", &bytes));
    NPU_MODEL_RETURN_IF_ERROR(read_scale_records(bytes, length, count, core_scales));
    for (size_t j = 0; j < count; ++j) {
      scales[core + j * cores] = core_scales[j];
    }
  }
  *out = scales;
  return Status();
}

Status load_weights(const OperationContext& ctx, bool depthwise, int64_t ofm_depth, int64_t ifm_depth,
                    const KernelGeometry& kernel, int16_t** out) {
  Status status;
  const int cores = cores_of(ctx, &status);
  NPU_MODEL_RETURN_IF_ERROR(status);
  const RegisterFile& regs = ctx.regs;
  WeightLayout layout{};
  layout.depthwise = depthwise;
  layout.part_kernel_first = field(regs.get(Cmd0::kKernelStride), 2, 1) != 0;
  layout.ifm_16bit = field(regs.get(Cmd0::kIfmPrecision), 2, 2) == static_cast<uint32_t>(Precision::k16);
  layout.ofm_depth = static_cast<int>(ofm_depth);
  layout.ifm_depth = depthwise ? 1 : static_cast<int>(ifm_depth);
  layout.kernel_h = kernel.taps_h;
  layout.kernel_w = kernel.taps_w;
  layout.dilation_x = kernel.dilation_x;
  layout.dilation_y = kernel.dilation_y;
  layout.ofm_block_depth = regs.get(Cmd0::kOfmBlkDepthM1) + 1;
  layout.ofm_ublock_depth = ctx.accelerator.ofm_ublock_depth;
  layout.ifm_ublock_depth = ctx.accelerator.ifm_ublock_depth;
  layout.cores = cores;

  int16_t* dense = nullptr;
  NPU_MODEL_RETURN_IF_ERROR(ctx.workspace.allocate(layout.dense_size(), "weights", &dense));
  MlwScratch* scratch = nullptr;
  NPU_MODEL_RETURN_IF_ERROR(ctx.workspace.allocate(1, "weight decoder", &scratch));
  const uint32_t region = field(regs.get(Cmd0::kWeightRegion), 0, 3);
  for (int core = 0; core < cores; ++core) {
    const size_t wanted = weight_stream_length(layout, core);
    int16_t* stream = nullptr;
    NPU_MODEL_RETURN_IF_ERROR(ctx.workspace.allocate(wanted, "weight stream", &stream));
    const uint64_t base = regs.address(core == 0 ? Cmd1::kWeightBase : Cmd1::kWeight1Base);
    const uint64_t length = static_cast<uint32_t>(regs.get(core == 0 ? Cmd1::kWeightLength : Cmd1::kWeight1Length));
    uint8_t* bytes = nullptr;
    NPU_MODEL_RETURN_IF_ERROR(
        ctx.memory.bytes(region, base, length, false, core == 0 ? "WEIGHT" : "WEIGHT1", &bytes));
    size_t decoded = 0;
    NPU_MODEL_RETURN_IF_ERROR(decode_mlw(bytes, length, stream, wanted, &decoded, scratch));
    NPU_MODEL_RETURN_IF_ERROR(place_weights(layout, core, stream, decoded, dense));
  }
  *out = dense;
  return Status();
}

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
