// Ethos-U85 feature maps and output stage from the registers (operation_u85.h).
#include "runtime/ethosu/npu_model/operation_u85.h"

namespace etarm {
namespace ethosu {
namespace npu_model {
namespace {

struct OperandRegisters {
  const char* name;
  u85::Cmd0 region, height0_m1, height1_m1, width0_m1, zero_point, precision;
  u85::Cmd1 base0, stride_x, stride_y, stride_c;
  u85::Field is_signed, bits, format, storage;
};

OperandRegisters registers_of(Operand operand) {
  switch (operand) {
    case Operand::kIfm:
      return {"IFM", u85::Cmd0::kIfmRegion, u85::Cmd0::kIfmHeight0M1, u85::Cmd0::kIfmHeight1M1, u85::Cmd0::kIfmWidth0M1,
              u85::Cmd0::kIfmZeroPoint, u85::Cmd0::kIfmPrecision, u85::Cmd1::kIfmBase0, u85::Cmd1::kIfmStrideX, u85::Cmd1::kIfmStrideY,
              u85::Cmd1::kIfmStrideC, u85::kIfmSigned, u85::kIfmPrecision, u85::kIfmFormat, u85::kIfmStorage};
    case Operand::kIfm2:
      return {"IFM2", u85::Cmd0::kIfm2Region, u85::Cmd0::kIfm2Height0M1, u85::Cmd0::kIfm2Height1M1, u85::Cmd0::kIfm2Width0M1,
              u85::Cmd0::kIfm2ZeroPoint, u85::Cmd0::kIfm2Precision, u85::Cmd1::kIfm2Base0, u85::Cmd1::kIfm2StrideX, u85::Cmd1::kIfm2StrideY,
              u85::Cmd1::kIfm2StrideC, u85::kIfmSigned, u85::kIfmPrecision, u85::kIfmFormat, u85::kIfmStorage};
    case Operand::kOfm:
    default:
      return {"OFM", u85::Cmd0::kOfmRegion, u85::Cmd0::kOfmHeight0M1, u85::Cmd0::kOfmHeight1M1, u85::Cmd0::kOfmWidth0M1,
              u85::Cmd0::kOfmZeroPoint, u85::Cmd0::kOfmPrecision, u85::Cmd1::kOfmBase0, u85::Cmd1::kOfmStrideX, u85::Cmd1::kOfmStrideY,
              u85::Cmd1::kOfmStrideC, u85::kOfmSigned, u85::kOfmPrecision, u85::kOfmFormat, u85::kOfmStorage};
  }
}

constexpr uint32_t kLutSlotBytes = 256;

}  // namespace

Status feature_map_u85(const RegisterFile& regs, const Memory& memory, Operand operand, FeatureMap* out,
                       bool wide) {
  const OperandRegisters r = registers_of(operand);
  const uint32_t storage = regs.get(r.precision, r.storage);
  const bool chained = storage == static_cast<uint32_t>(u85::Storage::kChained);
  // An OFM without storage: the operation keeps its accumulators and writes nothing.
  const bool unstored = operand == Operand::kOfm && storage == static_cast<uint32_t>(u85::Storage::kNone);
  if (storage != static_cast<uint32_t>(u85::Storage::kTile2x2) && !chained && !unstored) {
    return Status::error(Fault::kUnsupported, "%s storage %u (%s) is not modelled yet", r.name,
                         static_cast<unsigned>(storage),
                         storage == static_cast<uint32_t>(u85::Storage::kNone) ? "no storage" : "3x1 tiles");
  }
  FeatureMap fm{};
  fm.name = r.name;
  fm.region = regs.get(r.region, u85::kRegion);
  for (int t = 0; t < 4; ++t) {
    fm.base[t] = regs.address(static_cast<u85::Cmd1>(static_cast<uint16_t>(r.base0) + t));
  }
  fm.height0 = int64_t{regs.get(r.height0_m1)} + 1;
  fm.height1 = int64_t{regs.get(r.height1_m1)} + 1;
  fm.width0 = int64_t{regs.get(r.width0_m1)} + 1;
  fm.stride_x = regs.stride(r.stride_x);
  fm.stride_y = regs.stride(r.stride_y);
  fm.stride_c = regs.stride(r.stride_c);
  fm.is_signed = regs.get(r.precision, r.is_signed) != 0;
  const uint32_t bits = regs.get(r.precision, r.bits);
  if (bits == static_cast<uint32_t>(u85::Precision::k64) && (!wide || !fm.is_signed)) {
    return Status::error(Fault::kUnsupported, "a %s64-bit %s is not modelled for this operation",
                         fm.is_signed ? "" : "unsigned ", r.name);
  }
  fm.elem_bytes = 1 << bits;
  const uint32_t format = regs.get(r.precision, r.format);
  if (format > static_cast<uint32_t>(u85::Format::kNhcwb16)) {
    return Status::error(Fault::kMalformedStream, "%s format field is %u (only NHWC 0 and NHCWB16 1 exist)", r.name,
                         static_cast<unsigned>(format));
  }
  fm.layout = format == 0 ? Layout::kNhwc : Layout::kNhcwb16;
  const uint16_t zp = regs.get(r.zero_point);
  fm.zero_point = fm.is_signed ? int32_t{static_cast<int16_t>(zp)} : int32_t{zp};
  if (chained || unstored) {
    // In a chaining buffer (the region field names it) or nowhere: no data to address.
    *out = fm;
    return Status();
  }
  uint8_t* data = nullptr;
  NPU_MODEL_RETURN_IF_ERROR(memory.bytes(fm.region, 0, 0, operand == Operand::kOfm, r.name, &data));
  fm.data = memory.region(fm.region).data;
  fm.size = memory.region(fm.region).size;
  fm.span = memory.span(r.name, fm.region, operand == Operand::kOfm);
  describe_span(fm);
  *out = fm;
  return Status();
}

bool is_chained_u85(const RegisterFile& regs, Operand operand) {
  const OperandRegisters r = registers_of(operand);
  return regs.get(r.precision, r.storage) == static_cast<uint32_t>(u85::Storage::kChained);
}

Status store_ofm_u85(const OperationContext& ctx, const FeatureMap& ofm, const OfmShape& shape, const int32_t* values) {
  const RegisterFile& regs = ctx.regs;
  const uint32_t transpose = regs.get(u85::Cmd0::kOfmPrecision, u85::kOfmTranspose);
  const uint32_t reverse = regs.get(u85::Cmd0::kOfmPrecision, u85::kOfmReverse);
  if (regs.get(u85::Cmd0::kOfmPrecision, u85::kOfmStorage) == static_cast<uint32_t>(u85::Storage::kNone)) {
    return Status();
  }
  if (is_chained_u85(regs, Operand::kOfm)) {
    if (transpose != static_cast<uint32_t>(u85::Transpose::kHwc) || reverse != static_cast<uint32_t>(u85::Reverse::kNone)) {
      return Status::error(Fault::kUnsupported, "a chained OFM transposed or reversed");
    }
    return ctx.chains->store(ofm.region, shape.h, shape.w, shape.c, values);
  }
  // The OFM goes to memory: the chain, if there was one, ends here.
  ctx.chains->clear();
  if (transpose == static_cast<uint32_t>(u85::Transpose::kHwc) && reverse == static_cast<uint32_t>(u85::Reverse::kNone)) {
    return store_feature_map(ofm, shape.h, shape.w, shape.c, values);
  }
  if (transpose != static_cast<uint32_t>(u85::Transpose::kHwc) && reverse != static_cast<uint32_t>(u85::Reverse::kNone)) {
    return Status::error(Fault::kUnsupported, "an OFM both transposed and reversed");
  }
  const bool reverse_h = reverse == static_cast<uint32_t>(u85::Reverse::kH);
  const bool reverse_w = reverse == static_cast<uint32_t>(u85::Reverse::kW);
  const bool reverse_c = reverse == static_cast<uint32_t>(u85::Reverse::kC);
  for (int64_t y = 0; y < shape.h; ++y) {
    for (int64_t x = 0; x < shape.w; ++x) {
      for (int64_t c = 0; c < shape.c; ++c) {
        // The stored element's coordinates: the operation's axes in the order the transpose
        // names, or mirrored along the reversed axis.
        int64_t at[3];
        switch (static_cast<u85::Transpose>(transpose)) {
          case u85::Transpose::kHwc:
            at[0] = reverse_h ? shape.h - 1 - y : y;
            at[1] = reverse_w ? shape.w - 1 - x : x;
            at[2] = reverse_c ? shape.c - 1 - c : c;
            break;
          case u85::Transpose::kWhc:
            at[0] = x, at[1] = y, at[2] = c;
            break;
          case u85::Transpose::kHcw:
            at[0] = y, at[1] = c, at[2] = x;
            break;
          case u85::Transpose::kWch:
            at[0] = x, at[1] = c, at[2] = y;
            break;
          case u85::Transpose::kChw:
            at[0] = c, at[1] = y, at[2] = x;
            break;
          case u85::Transpose::kCwh:
            at[0] = c, at[1] = x, at[2] = y;
            break;
          default:
            return Status::error(Fault::kMalformedStream, "OFM_PRECISION has the reserved transpose %u",
                                 static_cast<unsigned>(transpose));
        }
        NPU_MODEL_RETURN_IF_ERROR(ofm.write(at[0], at[1], at[2], *values++));
      }
    }
  }
  return Status();
}

Status store_wide_ofm_u85(const OperationContext& ctx, const FeatureMap& ofm, const OfmShape& shape,
                          const int64_t* values) {
  const RegisterFile& regs = ctx.regs;
  if (regs.get(u85::Cmd0::kOfmPrecision, u85::kOfmStorage) == static_cast<uint32_t>(u85::Storage::kNone)) {
    return Status();
  }
  if (is_chained_u85(regs, Operand::kOfm) ||
      regs.get(u85::Cmd0::kOfmPrecision, u85::kOfmTranspose) != static_cast<uint32_t>(u85::Transpose::kHwc) ||
      regs.get(u85::Cmd0::kOfmPrecision, u85::kOfmReverse) != static_cast<uint32_t>(u85::Reverse::kNone)) {
    return Status::error(Fault::kUnsupported, "a 64-bit OFM chained, transposed or reversed is not modelled");
  }
  ctx.chains->clear();
  for (int64_t y = 0; y < shape.h; ++y) {
    for (int64_t x = 0; x < shape.w; ++x) {
      for (int64_t c = 0; c < shape.c; ++c) {
        NPU_MODEL_RETURN_IF_ERROR(ofm.write_wide(y, x, c, *values++));
      }
    }
  }
  return Status();
}

Status load_scales_u85(const OperationContext& ctx, int64_t channels, ChannelScale** out) {
  const RegisterFile& regs = ctx.regs;
  const bool acc48 = regs.get(u85::Cmd0::kAccFormat, u85::kAccFormat) == static_cast<uint32_t>(u85::AccFormat::kInt48);
  const uint32_t region = regs.get(u85::Cmd0::kScaleRegion, u85::kRegion);
  const uint64_t base = regs.address(u85::Cmd1::kScaleBase);
  const uint64_t length = static_cast<uint32_t>(regs.get(u85::Cmd1::kScaleLength)) & 0xFFFFFu;
  if (length < static_cast<uint64_t>(channels) * kScaleRecordBytes) {
    return Status::error(Fault::kBadWeights, "SCALE_LENGTH %llu holds fewer than the %lld channels' records",
                         static_cast<unsigned long long>(length), static_cast<long long>(channels));
  }
  uint8_t* bytes = nullptr;
  NPU_MODEL_RETURN_IF_ERROR(ctx.memory.bytes(region, base, length, false, "SCALE", &bytes));
  ChannelScale* scales = nullptr;
  NPU_MODEL_RETURN_IF_ERROR(ctx.workspace.allocate(static_cast<size_t>(channels), "scale records", &scales));
  for (int64_t c = 0; c < channels; ++c) {
    const uint8_t* r = bytes + c * kScaleRecordBytes;
    uint64_t bias = 0;
    const int bias_bytes = acc48 ? 6 : 4;
    for (int b = 0; b < bias_bytes; ++b) bias |= uint64_t{r[b]} << (8 * b);
    const int sign_bit = 8 * bias_bytes - 1;
    scales[c].bias = (bias >> sign_bit) & 1 ? static_cast<int64_t>(bias) - (int64_t{1} << (sign_bit + 1))
                                            : static_cast<int64_t>(bias);
    uint32_t scale = 0;
    for (int b = bias_bytes; b < 8; ++b) scale |= uint32_t{r[b]} << (8 * (b - bias_bytes));
    scales[c].scale = scale & (acc48 ? 0x7FFFu : 0x7FFFFFFFu);
    scales[c].shift = r[8] & 0x3Fu;
  }
  *out = scales;
  return Status();
}

Status round_mode_u85(uint32_t mode, RoundMode* out) {
  switch (static_cast<u85::OfmRoundMode>(mode)) {
    case u85::OfmRoundMode::kNatural:
      *out = RoundMode::kNatural;
      return Status();
    case u85::OfmRoundMode::kDoubleSymmetric:
      *out = RoundMode::kDouble;
      return Status();
    case u85::OfmRoundMode::kTruncateToZero:
      *out = RoundMode::kTruncate;
      return Status();
    case u85::OfmRoundMode::kTruncateToLower:
      *out = RoundMode::kFloor;
      return Status();
    default:
      return Status::error(Fault::kUnsupported, "rounding mode %u is not modelled yet", static_cast<unsigned>(mode));
  }
}

Status output_stage_u85(const OperationContext& ctx, OutputStage* out, bool wide) {
  const RegisterFile& regs = ctx.regs;
  OutputStage s{};
  NPU_MODEL_RETURN_IF_ERROR(feature_map_u85(regs, ctx.memory, Operand::kOfm, &s.ofm, wide));
  s.per_channel = regs.get(u85::Cmd0::kOfmPrecision, u85::kOfmScaleMode) ==
                  static_cast<uint32_t>(u85::OfmScaleMode::kPerChannel);
  if (regs.get(u85::Cmd1::kOfmScale, u85::kScaleDoubleRound) != 0) {
    return Status::error(Fault::kUnsupported, "OFM_SCALE with a double-rounding shift is not modelled yet");
  }
  NPU_MODEL_RETURN_IF_ERROR(round_mode_u85(regs.get(u85::Cmd1::kOfmScale, u85::kOfmRoundMode), &s.round));
  s.global_scale = static_cast<uint32_t>(regs.get(u85::Cmd1::kOfmScale)) & 0x7FFFFFFFu;
  s.global_shift = regs.get(u85::Cmd1::kOfmScale, u85::kScaleShift);

  s.lo = s.ofm.type_min();
  s.hi = s.ofm.type_max();
  const bool clip = regs.get(u85::Cmd0::kActivation, u85::kActivationClipRange) ==
                    static_cast<uint32_t>(u85::ClipRange::kOfmType);
  // 32-bit OFMs saturate either way (as U55's do; nothing in Vela's streams says otherwise).
  s.wrap = !clip && s.ofm.elem_bytes < 4;
  if (clip) {
    const uint16_t act_min = regs.get(u85::Cmd0::kActivationMin);
    const uint16_t act_max = regs.get(u85::Cmd0::kActivationMax);
    const int64_t min_value = s.ofm.is_signed ? int64_t{static_cast<int16_t>(act_min)} : int64_t{act_min};
    const int64_t max_value = s.ofm.is_signed ? int64_t{static_cast<int16_t>(act_max)} : int64_t{act_max};
    s.lo = min_value > s.lo ? min_value : s.lo;
    s.hi = max_value < s.hi ? max_value : s.hi;
  }

  const uint32_t function = regs.get(u85::Cmd0::kActivation, u85::kActivationFunction);
  switch (static_cast<u85::ActivationFunction>(function)) {
    case u85::ActivationFunction::kNone:
      break;
    case u85::ActivationFunction::kLutS8S8: {
      if (s.ofm.elem_bytes != 1) {
        return Status::error(Fault::kMalformedStream, "ACTIVATION %s on a %d-byte OFM",
                             u85::activation_function_name(function), s.ofm.elem_bytes);
      }
      const uint32_t table = regs.get(u85::Cmd0::kActivation, u85::kActivationTable);
      uint8_t* lut = nullptr;
      NPU_MODEL_RETURN_IF_ERROR(
          ctx.memory.shram_bytes(table * kLutSlotBytes, kLutSlotBytes, false, "look-up table", &lut));
      s.lut = lut;
      break;
    }
    case u85::ActivationFunction::kLutS16S16:
    case u85::ActivationFunction::kLutS16S32: {
      const bool to_int16 = function == static_cast<uint32_t>(u85::ActivationFunction::kLutS16S16);
      if (s.ofm.elem_bytes != (to_int16 ? 2 : 4)) {
        return Status::error(Fault::kMalformedStream, "ACTIVATION %s on a %d-byte OFM",
                             u85::activation_function_name(function), s.ofm.elem_bytes);
      }
      uint8_t* lut = nullptr;
      NPU_MODEL_RETURN_IF_ERROR(ctx.memory.shram_bytes(0, 8 * kLutSlotBytes, false, "look-up table", &lut));
      s.lut_s16_s32 = lut;
      s.lut_to_int16 = to_int16;
      break;
    }
    default:
      return Status::error(Fault::kUnsupported, "ACTIVATION %s is not modelled yet",
                           u85::activation_function_name(function));
  }
  *out = s;
  return Status();
}

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
