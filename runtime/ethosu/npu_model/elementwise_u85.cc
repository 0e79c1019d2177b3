// NPU_OP_ELEMENTWISE on Ethos-U85: OFM element (y, x, c) from IFM and IFM2 elements, each of
// which may be broadcast along H, W and C (its coordinate is 0 on that axis) or be the
// OP_SCALAR constant, as its own NPU_SET_IFM(2)_BROADCAST says.
//
//   a = IFM - its zero point, scaled by IFM_SCALE; b = IFM2 - its zero point, scaled by
//       IFM2_SCALE (multiplier, shift and rounding of each; Vela leaves them at 1 and 0 for
//       MUL, MIN and MAX and puts ADD/SUB's operand rescale there);
//   ADD a + b, SUB a - b, MUL a * b, MIN, MAX;
// then the output stage with the global OFM_SCALE. U85's other modes fail as not modelled.
#include "runtime/ethosu/npu_model/operation_u85.h"
#include "runtime/ethosu/npu_model/scaling.h"

namespace etarm {
namespace ethosu {
namespace npu_model {
namespace {

// One operand: a feature map (with the axes it is broadcast along) or the scalar.
struct Input {
  FeatureMap fm;
  bool scalar;
  int32_t scalar_value;
  bool bcast_h, bcast_w, bcast_c;
  uint32_t scale, shift;
  RoundMode round;

  Status value(int64_t y, int64_t x, int64_t c, int64_t* out) const {
    int32_t v = scalar_value;
    if (!scalar) {
      NPU_MODEL_RETURN_IF_ERROR(fm.read(bcast_h ? 0 : y, bcast_w ? 0 : x, bcast_c ? 0 : c, &v));
    }
    *out = scale_and_round(int64_t{v} - fm.zero_point, scale, shift, round);
    return Status();
  }
};

Status input_from_registers(const OperationContext& ctx, Operand operand, Input* out) {
  const RegisterFile& regs = ctx.regs;
  const bool first = operand == Operand::kIfm;
  Input in{};
  const uint32_t broadcast = regs.get(first ? u85::Cmd0::kIfmBroadcast : u85::Cmd0::kIfm2Broadcast, u85::kBroadcastMode);
  in.scalar = broadcast == static_cast<uint32_t>(u85::Broadcast::kScalar);
  if (broadcast > static_cast<uint32_t>(u85::Broadcast::kScalar)) {
    return Status::error(Fault::kMalformedStream, "%s broadcast mode %u does not exist", first ? "IFM" : "IFM2",
                         static_cast<unsigned>(broadcast));
  }
  const u85::Cmd0 precision = first ? u85::Cmd0::kIfmPrecision : u85::Cmd0::kIfm2Precision;
  if (in.scalar) {
    // The value is OP_SCALAR; only the zero point and signedness of the operand apply.
    in.fm.name = first ? "IFM" : "IFM2";
    in.fm.is_signed = regs.get(precision, u85::kIfmSigned) != 0;
    const uint16_t zp = regs.get(first ? u85::Cmd0::kIfmZeroPoint : u85::Cmd0::kIfm2ZeroPoint);
    in.fm.zero_point = in.fm.is_signed ? int32_t{static_cast<int16_t>(zp)} : int32_t{zp};
    in.scalar_value = static_cast<int32_t>(static_cast<uint32_t>(regs.get(u85::Cmd1::kOpScalar)));
  } else {
    NPU_MODEL_RETURN_IF_ERROR(feature_map_u85(regs, ctx.memory, operand, &in.fm));
    in.bcast_h = (broadcast & static_cast<uint32_t>(u85::Broadcast::kH)) != 0;
    in.bcast_w = (broadcast & static_cast<uint32_t>(u85::Broadcast::kW)) != 0;
    in.bcast_c = (broadcast & static_cast<uint32_t>(u85::Broadcast::kC)) != 0;
  }
  const u85::Cmd1 scale = first ? u85::Cmd1::kIfmScale : u85::Cmd1::kIfm2Scale;
  if (regs.get(scale, u85::kScaleDoubleRound) != 0) {
    return Status::error(Fault::kUnsupported, "%s_SCALE with a double-rounding shift is not modelled yet",
                         first ? "IFM" : "IFM2");
  }
  in.scale = static_cast<uint32_t>(regs.get(scale)) & 0x7FFFFFFFu;
  in.shift = regs.get(scale, u85::kScaleShift);
  in.round = regs.get(scale, u85::kIfmRoundMode) == static_cast<uint32_t>(u85::IfmRoundMode::kNatural)
                 ? RoundMode::kNatural
                 : RoundMode::kDouble;
  *out = in;
  return Status();
}

}  // namespace

Status run_elementwise_u85(const OperationContext& ctx, u85::ElementwiseMode mode) {
  switch (mode) {
    case u85::ElementwiseMode::kAdd:
    case u85::ElementwiseMode::kSub:
    case u85::ElementwiseMode::kMul:
    case u85::ElementwiseMode::kMin:
    case u85::ElementwiseMode::kMax:
      break;
    default:
      return Status::error(Fault::kUnsupported, "%s on Ethos-U85 is not modelled yet",
                           u85::elementwise_mode_name(static_cast<uint32_t>(mode)));
  }
  const RegisterFile& regs = ctx.regs;
  const OfmShape ofm{int64_t{regs.get(u85::Cmd0::kOfmHeightM1)} + 1, int64_t{regs.get(u85::Cmd0::kOfmWidthM1)} + 1,
                     int64_t{regs.get(u85::Cmd0::kOfmDepthM1)} + 1};
  NPU_MODEL_RETURN_IF_ERROR(check_work(ctx, "elementwise", {static_cast<uint64_t>(ofm.h * ofm.w * ofm.c)}));
  if (regs.get(u85::Cmd0::kIfmUpscale, u85::kUpscaleMode) != 0) {
    return Status::error(Fault::kUnsupported, "IFM upscaling of an elementwise operation is not modelled yet");
  }
  if (regs.get(u85::Cmd0::kAccFormat, u85::kAccInput) != static_cast<uint32_t>(u85::AccInput::kReset) ||
      regs.get(u85::Cmd0::kAccFormat, u85::kAccOutput) != static_cast<uint32_t>(u85::AccOutput::kEnable)) {
    return Status::error(Fault::kUnsupported, "accumulator input/output modes are not modelled yet");
  }
  OutputStage out;
  NPU_MODEL_RETURN_IF_ERROR(output_stage_u85(ctx, &out));
  Input a_in, b_in;
  NPU_MODEL_RETURN_IF_ERROR(input_from_registers(ctx, Operand::kIfm, &a_in));
  NPU_MODEL_RETURN_IF_ERROR(input_from_registers(ctx, Operand::kIfm2, &b_in));

  int32_t* result = nullptr;
  NPU_MODEL_RETURN_IF_ERROR(ctx.workspace.allocate(static_cast<size_t>(ofm.h * ofm.w * ofm.c), "OFM", &result));
  int32_t* r = result;
  for (int64_t y = 0; y < ofm.h; ++y) {
    for (int64_t x = 0; x < ofm.w; ++x) {
      for (int64_t c = 0; c < ofm.c; ++c) {
        int64_t a = 0;
        int64_t b = 0;
        NPU_MODEL_RETURN_IF_ERROR(a_in.value(y, x, c, &a));
        NPU_MODEL_RETURN_IF_ERROR(b_in.value(y, x, c, &b));
        int64_t v = 0;
        switch (mode) {
          case u85::ElementwiseMode::kAdd:
            v = a + b;
            break;
          case u85::ElementwiseMode::kSub:
            v = a - b;
            break;
          case u85::ElementwiseMode::kMul:
            v = a * b;
            break;
          case u85::ElementwiseMode::kMin:
            v = a < b ? a : b;
            break;
          case u85::ElementwiseMode::kMax:
          default:
            v = a > b ? a : b;
            break;
        }
        *r++ = out.finish_global(v);
      }
    }
  }
  return store_ofm_u85(regs, out.ofm, ofm, result);
}

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
