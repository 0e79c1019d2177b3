// ACC_FORMAT's accumulator modes on Ethos-U85 (operation_u85.h): where an operation's
// accumulators start, and whether its OFM is written from them.
#include "runtime/ethosu/npu_model/operation_u85.h"

namespace etarm {
namespace ethosu {
namespace npu_model {
namespace {

// The width in bits of ACC_FORMAT's accumulators.
int accumulator_bits(const RegisterFile& regs) {
  return regs.get(u85::Cmd0::kAccFormat, u85::kAccFormat) == static_cast<uint32_t>(u85::AccFormat::kInt48) ? 48 : 32;
}

// IFM2's elements minus its zero point, one per OFM element: a 64-bit IFM2 (Vela's int48
// accumulators written out) must hold values the accumulators can: wider ones are not modelled.
Status ifm2_accumulators(const OperationContext& ctx, const OfmShape& ofm, const int64_t** out) {
  FeatureMap ifm2;
  NPU_MODEL_RETURN_IF_ERROR(feature_map_u85(ctx.regs, ctx.memory, Operand::kIfm2, &ifm2, true));
  const int bits = accumulator_bits(ctx.regs);
  const int64_t lo = -(int64_t{1} << (bits - 1));
  const int64_t hi = (int64_t{1} << (bits - 1)) - 1;
  int64_t* values = nullptr;
  NPU_MODEL_RETURN_IF_ERROR(
      ctx.workspace.allocate(static_cast<size_t>(ofm.h * ofm.w * ofm.c), "IFM2 accumulators", &values));
  int64_t* v = values;
  for (int64_t y = 0; y < ofm.h; ++y) {
    for (int64_t x = 0; x < ofm.w; ++x) {
      for (int64_t c = 0; c < ofm.c; ++c) {
        int64_t e = 0;
        NPU_MODEL_RETURN_IF_ERROR(ifm2.read_wide(y, x, c, &e));
        if (ifm2.elem_bytes == 8 && (e < lo || e > hi)) {
          return Status::error(Fault::kUnsupported,
                               "IFM2 element (%lld, %lld, %lld) does not fit the %d-bit accumulators: not modelled",
                               static_cast<long long>(y), static_cast<long long>(x), static_cast<long long>(c), bits);
        }
        *v++ = e - ifm2.zero_point;
      }
    }
  }
  *out = values;
  return Status();
}

}  // namespace

Status initial_accumulators_u85(const OperationContext& ctx, const OfmShape& ofm, const int64_t** out) {
  *out = nullptr;
  const uint32_t input = ctx.regs.get(u85::Cmd0::kAccFormat, u85::kAccInput);
  switch (static_cast<u85::AccInput>(input)) {
    case u85::AccInput::kReset:
      return Status();
    case u85::AccInput::kKeep:
      return ctx.accumulators->get(ofm.h, ofm.w, ofm.c, out);
    case u85::AccInput::kIfm2:
      return ifm2_accumulators(ctx, ofm, out);
    default:
      return Status::error(Fault::kMalformedStream, "ACC_FORMAT has the reserved input mode %u",
                           static_cast<unsigned>(input));
  }
}

Status check_accumulator_output_u85(const RegisterFile& regs) {
  const bool disabled =
      regs.get(u85::Cmd0::kAccFormat, u85::kAccOutput) == static_cast<uint32_t>(u85::AccOutput::kDisable);
  const bool stored =
      regs.get(u85::Cmd0::kOfmPrecision, u85::kOfmStorage) != static_cast<uint32_t>(u85::Storage::kNone);
  if (disabled && stored) {
    return Status::error(Fault::kUnsupported, "ACC_FORMAT output DISABLE with a stored or chained OFM is not modelled");
  }
  return Status();
}

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
