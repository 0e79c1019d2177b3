// NPU_OP_ELEMENTWISE: OFM element (y, x, c) from IFM element (y, x, c) and IFM2 element
// (y, x, c), where IFM2_BROADCAST can repeat IFM2 along H, W or C (its coordinate is 0 on
// that axis) or replace it by the IFM2_SCALAR constant, and can swap the operands
// (operand A is the IFM unless the operand order puts IFM2 first).
//
//   a = operand A - its zero point, b = operand B - its zero point
//   ADD, SUB: both operands are scaled first, as IFM_PRECISION's scale mode says:
//       OPA_OPB_16  a * OPA_SCALE[15:0], b * OPB_SCALE[15:0] (signed 16-bit, no shift);
//       OPA_32      a scaled by OPA_SCALE's 32-bit scale and shift (IFM rounding), b shifted
//                   left by the fixed 19 bits (8-bit IFMs) or 14 (16-bit);
//       OPB_32      the same with the roles of a and b exchanged;
//     then a + b or a - b.
//   MUL a * b; MIN, MAX; ABS |a|;
//   CLZ the leading zero bits of a as a 32-bit word;
//   SHL a << b, kept to 32 bits; SHR a >> b rounded as OFM_PRECISION says (natural: half
//   up; truncate: toward zero); shift counts outside [0, 31] are clamped.
// The result goes through the output stage with the global OFM_SCALE.
#include "runtime/ethosu/npu_model/operation.h"
#include "runtime/ethosu/npu_model/scaling.h"

namespace etarm {
namespace ethosu {
namespace npu_model {
namespace {

const char* mode_name(ElementwiseMode mode) {
  switch (mode) {
    case ElementwiseMode::kLeakyRelu:
      return "LRELU";
    default:
      return "?";
  }
}

bool is_unary(ElementwiseMode mode) {
  return mode == ElementwiseMode::kAbs || mode == ElementwiseMode::kClz || mode == ElementwiseMode::kLeakyRelu;
}

}  // namespace

Status run_elementwise(const OperationContext& ctx, ElementwiseMode mode) {
  switch (mode) {
    case ElementwiseMode::kMul:
    case ElementwiseMode::kAdd:
    case ElementwiseMode::kSub:
    case ElementwiseMode::kMin:
    case ElementwiseMode::kMax:
    case ElementwiseMode::kAbs:
    case ElementwiseMode::kClz:
    case ElementwiseMode::kShr:
    case ElementwiseMode::kShl:
      break;
    case ElementwiseMode::kLeakyRelu:
      return Status::error(Fault::kUnsupported, "elementwise %s is not modelled", mode_name(mode));
    default:
      return Status::error(Fault::kMalformedStream, "reserved elementwise mode %u", static_cast<unsigned>(mode));
  }
  const RegisterFile& regs = ctx.regs;
  const OfmShape ofm = ofm_shape(regs);
  NPU_MODEL_RETURN_IF_ERROR(check_work(ctx, "elementwise", {static_cast<uint64_t>(ofm.h * ofm.w * ofm.c)}));
  if (regs.get(Cmd0::kIfmUpscale) != 0) {
    return Status::error(Fault::kUnsupported, "IFM upscaling (IFM_UPSCALE %u) is not modelled",
                         static_cast<unsigned>(regs.get(Cmd0::kIfmUpscale)));
  }
  OutputStage out;
  NPU_MODEL_RETURN_IF_ERROR(output_stage_from_registers(ctx, &out));
  FeatureMap ifm;
  NPU_MODEL_RETURN_IF_ERROR(feature_map_from_registers(regs, ctx.memory, Operand::kIfm, &ifm));

  const bool unary = is_unary(mode);
  const uint16_t broadcast = regs.get(Cmd0::kIfm2Broadcast);
  const bool bcast_h = field(broadcast, 0, 1) != 0;
  const bool bcast_w = field(broadcast, 1, 1) != 0;
  const bool bcast_c = field(broadcast, 2, 1) != 0;
  const bool ifm2_first = field(broadcast, 6, 1) != 0;
  const bool scalar = field(broadcast, 7, 1) != 0;
  FeatureMap ifm2{};
  int32_t scalar_value = 0;
  if (!unary) {
    if (scalar) {
      // Only the precision and zero point of IFM2 matter: no region is read.
      const uint16_t precision = regs.get(Cmd0::kIfm2Precision);
      ifm2.is_signed = field(precision, 0, 1) != 0;
      const uint16_t zp = regs.get(Cmd0::kIfm2ZeroPoint);
      ifm2.zero_point = ifm2.is_signed ? int32_t{static_cast<int16_t>(zp)} : int32_t{zp};
      const uint16_t raw = regs.get(Cmd0::kIfm2Scalar);
      scalar_value = ifm2.is_signed ? int32_t{static_cast<int16_t>(raw)} : int32_t{raw};
    } else {
      NPU_MODEL_RETURN_IF_ERROR(feature_map_from_registers(regs, ctx.memory, Operand::kIfm2, &ifm2));
    }
  }

  // Operand scaling of ADD and SUB.
  const uint16_t ifm_precision = regs.get(Cmd0::kIfmPrecision);
  const uint32_t scale_mode = field(ifm_precision, 8, 2);
  const uint32_t ifm_round = field(ifm_precision, 14, 2);
  if (ifm_round > static_cast<uint32_t>(RoundMode::kNatural)) {
    return Status::error(Fault::kMalformedStream, "IFM_PRECISION has the reserved rounding mode 3");
  }
  if (scale_mode > static_cast<uint32_t>(IfmScaleMode::kOpb32)) {
    return Status::error(Fault::kMalformedStream, "IFM_PRECISION has the reserved scale mode 3");
  }
  const uint64_t opa = regs.get(Cmd1::kOpaScale);
  const uint32_t opa_scale = static_cast<uint32_t>(opa);
  const uint32_t opa_shift = field(opa, 32, 6);
  const int64_t opa16 = static_cast<int16_t>(opa_scale);
  const int64_t opb16 = static_cast<int16_t>(static_cast<uint32_t>(regs.get(Cmd1::kOpbScale)));
  const int fixed_shift = ifm.elem_bytes == 1 ? 19 : 14;
  const bool scaled_operands = mode == ElementwiseMode::kAdd || mode == ElementwiseMode::kSub;
  if (scaled_operands && scale_mode != static_cast<uint32_t>(IfmScaleMode::kOpaOpb16) && ifm.elem_bytes == 4) {
    return Status::error(Fault::kUnsupported, "32-bit operand scaling of a 32-bit IFM");
  }

  int32_t* result = nullptr;
  NPU_MODEL_RETURN_IF_ERROR(ctx.workspace.allocate(static_cast<size_t>(ofm.h * ofm.w * ofm.c), "OFM", &result));
  int32_t* r = result;
  for (int64_t y = 0; y < ofm.h; ++y) {
    for (int64_t x = 0; x < ofm.w; ++x) {
      for (int64_t c = 0; c < ofm.c; ++c) {
        int32_t v1 = 0;
        NPU_MODEL_RETURN_IF_ERROR(ifm.read(y, x, c, &v1));
        int64_t a = int64_t{v1} - ifm.zero_point;
        int64_t b = 0;
        if (!unary) {
          int32_t v2 = scalar_value;
          if (!scalar) {
            NPU_MODEL_RETURN_IF_ERROR(ifm2.read(bcast_h ? 0 : y, bcast_w ? 0 : x, bcast_c ? 0 : c, &v2));
          }
          b = int64_t{v2} - ifm2.zero_point;
          if (ifm2_first) {
            const int64_t t = a;
            a = b;
            b = t;
          }
        }
        int64_t v = 0;
        switch (mode) {
          case ElementwiseMode::kAdd:
          case ElementwiseMode::kSub:
            if (scale_mode == static_cast<uint32_t>(IfmScaleMode::kOpaOpb16)) {
              a *= opa16;
              b *= opb16;
            } else if (scale_mode == static_cast<uint32_t>(IfmScaleMode::kOpa32)) {
              a = scale_and_round(a, opa_scale, opa_shift, static_cast<RoundMode>(ifm_round));
              b *= int64_t{1} << fixed_shift;
            } else {
              b = scale_and_round(b, opa_scale, opa_shift, static_cast<RoundMode>(ifm_round));
              a *= int64_t{1} << fixed_shift;
            }
            v = mode == ElementwiseMode::kAdd ? a + b : a - b;
            break;
          case ElementwiseMode::kMul:
            v = a * b;
            break;
          case ElementwiseMode::kMin:
            v = a < b ? a : b;
            break;
          case ElementwiseMode::kMax:
            v = a > b ? a : b;
            break;
          case ElementwiseMode::kClz:
            v = count_leading_zeros(static_cast<uint32_t>(a));
            break;
          case ElementwiseMode::kShl:
            v = static_cast<int32_t>(static_cast<uint32_t>(a) << clamp(b, 0, 31));
            break;
          case ElementwiseMode::kShr:
            v = shift_right_rounded(a, static_cast<uint32_t>(clamp(b, 0, 31)), out.round);
            break;
          case ElementwiseMode::kAbs:
          default:
            v = a < 0 ? -a : a;
            break;
        }
        *r++ = out.finish_global(v);
      }
    }
  }
  return store_feature_map(out.ofm, ofm.h, ofm.w, ofm.c, result);
}

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
