// NPU_OP_ELEMENTWISE on Ethos-U85: OFM element (y, x, c) from IFM and IFM2 elements, each of
// which may be broadcast along H, W and C (its coordinate is 0 on that axis) or be the
// OP_SCALAR constant, as its own NPU_SET_IFM(2)_BROADCAST says.
//
//   a = IFM - its zero point, scaled by IFM_SCALE; b = IFM2 - its zero point, scaled by
//       IFM2_SCALE (multiplier, shift and rounding of each; Vela leaves them at 1 and 0 for
//       MUL, MIN and MAX and puts ADD/SUB's operand rescale there);
//   ADD a + b, SUB a - b, MUL a * b, MIN, MAX; ABS |a|; CLZ the leading zero bits of a as a
//   32-bit word;
//   SHL a << b kept to 32 bits; SHR a >> b rounded as OFM_SCALE's rounding mode says (Vela:
//   natural for TOSA's rounded ARITHMETIC_RIGHT_SHIFT, truncate-to-lower, i.e. floor, for the
//   un-rounded one); LSR a >> b on the bits of a as an unsigned number of the IFM's width;
//   shift counts outside [0, 31] are clamped;
//   CMP_EQ, CMP_NE, CMP_GE, CMP_GT: all ones (-1) when true, 0 when false (Vela's bool is a
//   byte with every bit set, which is why its SELECT is OR(AND(a, s), AND_NOT(b, s)));
//   AND, OR, XOR, NOT ~a, AND_NOT a & ~b on the operands' bits;
//   DIV a / b rounded toward zero (TOSA's INTDIV; Vela leaves every scale at unit); a
//   divisor of 0 has no result TOSA defines, the model gives the largest int32 of a's sign
//   (0 for 0 / 0) rather than fault on data;
// then the output stage with the global OFM_SCALE. LRELU fails as not modelled.
#include <cstdint>

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
  const ChainBuffers::Buffer* chain;  // a chained operand's values, or nullptr
  bool bcast_h, bcast_w, bcast_c;
  uint32_t scale, shift;
  RoundMode round;

  Status value(int64_t y, int64_t x, int64_t c, int64_t* out) const {
    int32_t v = scalar_value;
    if (bcast_h) y = 0;
    if (bcast_w) x = 0;
    if (bcast_c) c = 0;
    if (chain != nullptr) {
      if (y >= chain->h || x >= chain->w || c >= chain->c) {
        return Status::error(Fault::kOutOfBounds, "%s reads (%lld, %lld, %lld) of a %lldx%lldx%lld chaining buffer",
                             fm.name, static_cast<long long>(y), static_cast<long long>(x), static_cast<long long>(c),
                             static_cast<long long>(chain->h), static_cast<long long>(chain->w),
                             static_cast<long long>(chain->c));
      }
      v = chain->values[(y * chain->w + x) * chain->c + c];
    } else if (!scalar) {
      NPU_MODEL_RETURN_IF_ERROR(fm.read(y, x, c, &v));
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
    in.fm.elem_bytes = 1 << regs.get(precision, u85::kIfmPrecision);
    in.scalar_value = static_cast<int32_t>(static_cast<uint32_t>(regs.get(u85::Cmd1::kOpScalar)));
  } else {
    NPU_MODEL_RETURN_IF_ERROR(feature_map_u85(regs, ctx.memory, operand, &in.fm));
    if (is_chained_u85(regs, operand)) {
      NPU_MODEL_RETURN_IF_ERROR(ctx.chains->get(in.fm.region, in.fm.name, &in.chain));
    }
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

bool is_unary(u85::ElementwiseMode mode) {
  return mode == u85::ElementwiseMode::kAbs || mode == u85::ElementwiseMode::kClz ||
         mode == u85::ElementwiseMode::kNot;
}

int64_t compare(bool condition) {
  return condition ? -1 : 0;
}

int64_t divide(int64_t a, int64_t b) {
  if (b == 0) {
    return a > 0 ? INT32_MAX : (a < 0 ? INT32_MIN : 0);
  }
  return a / b;
}

int64_t apply(u85::ElementwiseMode mode, int64_t a, int64_t b, int ifm_bits, RoundMode round) {
  using M = u85::ElementwiseMode;
  switch (mode) {
    case M::kAdd:
      return a + b;
    case M::kSub:
      return a - b;
    case M::kMul:
      return a * b;
    case M::kMin:
      return a < b ? a : b;
    case M::kMax:
      return a > b ? a : b;
    case M::kAbs:
      return a < 0 ? -a : a;
    case M::kClz:
      return count_leading_zeros(static_cast<uint32_t>(a));
    case M::kShl:
      return static_cast<int32_t>(static_cast<uint32_t>(a) << clamp(b, 0, 31));
    case M::kShr:
      return shift_right_rounded(a, static_cast<uint32_t>(clamp(b, 0, 31)), round);
    case M::kLsr: {
      const uint64_t mask = ifm_bits >= 32 ? 0xFFFFFFFFu : (uint64_t{1} << ifm_bits) - 1;
      return static_cast<int64_t>((static_cast<uint64_t>(a) & mask) >> clamp(b, 0, 31));
    }
    case M::kCmpEq:
      return compare(a == b);
    case M::kCmpNe:
      return compare(a != b);
    case M::kCmpGe:
      return compare(a >= b);
    case M::kCmpGt:
      return compare(a > b);
    case M::kAnd:
      return a & b;
    case M::kOr:
      return a | b;
    case M::kXor:
      return a ^ b;
    case M::kNot:
      return ~a;
    case M::kDiv:
      return divide(a, b);
    case M::kAndNot:
    default:
      return a & ~b;
  }
}

}  // namespace

Status run_elementwise_u85(const OperationContext& ctx, u85::ElementwiseMode mode) {
  using M = u85::ElementwiseMode;
  switch (mode) {
    case M::kAdd:
    case M::kSub:
    case M::kMul:
    case M::kMin:
    case M::kMax:
    case M::kAbs:
    case M::kClz:
    case M::kShl:
    case M::kShr:
    case M::kLsr:
    case M::kCmpEq:
    case M::kCmpNe:
    case M::kCmpGe:
    case M::kCmpGt:
    case M::kAnd:
    case M::kOr:
    case M::kXor:
    case M::kNot:
    case M::kAndNot:
    case M::kDiv:
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
  const bool unary = is_unary(mode);
  Input a_in, b_in{};
  NPU_MODEL_RETURN_IF_ERROR(input_from_registers(ctx, Operand::kIfm, &a_in));
  if (!unary) {
    NPU_MODEL_RETURN_IF_ERROR(input_from_registers(ctx, Operand::kIfm2, &b_in));
  }
  const int ifm_bits = a_in.fm.elem_bytes * 8;

  int32_t* result = nullptr;
  NPU_MODEL_RETURN_IF_ERROR(ctx.workspace.allocate(static_cast<size_t>(ofm.h * ofm.w * ofm.c), "OFM", &result));
  int32_t* r = result;
  for (int64_t y = 0; y < ofm.h; ++y) {
    for (int64_t x = 0; x < ofm.w; ++x) {
      for (int64_t c = 0; c < ofm.c; ++c) {
        int64_t a = 0;
        int64_t b = 0;
        NPU_MODEL_RETURN_IF_ERROR(a_in.value(y, x, c, &a));
        if (!unary) {
          NPU_MODEL_RETURN_IF_ERROR(b_in.value(y, x, c, &b));
        }
        const int64_t v = apply(mode, a, b, ifm_bits, out.round);
        *r++ = out.finish_global(v);
      }
    }
  }
  return store_ofm_u85(ctx, out.ofm, ofm, result);
}

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
