// NPU_OP_POOL on Ethos-U85: over the window's taps inside the IFM (padding taps skipped),
//   MAX, MIN  the largest / smallest (ifm - zero point) of each channel;
//   SUM       the sum of each channel (Vela's average pooling with kernels above 8x8 and its
//             1x1 copies, rescales and layout transposes; 1 / taps is folded into OFM_SCALE);
//   AVERAGE   the sum divided by the number of taps inside the IFM, as TOSA's AVG_POOL2D
//             divides: times the reciprocal multiplier ((2^30 + 1) << k) / n, shifted right
//             by 30 + k with round half up, where 2^(k-1) < n <= 2^k;
//   NONE      the IFM element itself (a 1x1 window: Vela's copies, rescales and transposes);
//   REDUCE_SUM the sum over the window and all IFM_DEPTH channels, into every OFM channel
//             alike (Vela: a 1x1 window and a one-channel OFM);
// then the output stage with the global OFM_SCALE or per-channel records (bias added, as
// U55's pooling), and the OFM transpose. ACC_FORMAT's input mode starts each accumulator at 0
// (RESET), at the previous operation's (KEEP) or at IFM2's element minus its zero point (IFM2,
// up to 64 bits: accumulator_modes_u85.cc); SUM, REDUCE_SUM and NONE add to it (NONE adds no
// IFM element when the accumulator does not start at 0: Vela's 32-bit copies read IFM2 that
// way); MAX and MIN from KEEP take the kept value as one more tap (Vela's pools with a stride
// above 3: one 1x1 POOL per window tap, chained through the kept accumulators). MAX, MIN and
// AVERAGE from IFM2, and AVERAGE from KEEP, fail as not modelled (no stream seen has them). The
// accumulators are kept for a following KEEP (accumulators.h). The ARGMAX modes fail as not
// modelled.
#include "runtime/ethosu/npu_model/operation_u85.h"
#include "runtime/ethosu/npu_model/scaling.h"

namespace etarm {
namespace ethosu {
namespace npu_model {
namespace {

int64_t divide_by_taps(int64_t sum, int64_t taps) {
  uint32_t k = 0;
  while ((int64_t{1} << k) < taps) ++k;
  const uint64_t multiplier = (((uint64_t{1} << 30) + 1) << k) / static_cast<uint64_t>(taps);
  return scale_and_round(sum, static_cast<uint32_t>(multiplier), 30 + k, RoundMode::kNatural);
}

// The output stage with the channel's record (its bias added) or the global OFM_SCALE.
int32_t finish(const OutputStage& out, const ChannelScale* scales, int64_t oc, int64_t acc) {
  if (scales != nullptr) {
    return out.finish(acc + scales[oc].bias, scales[oc].scale, scales[oc].shift);
  }
  return out.finish_global(acc);
}

}  // namespace

Status run_pooling_u85(const OperationContext& ctx, u85::PoolMode mode) {
  const bool reduce = mode == u85::PoolMode::kReduceSum;
  if (mode != u85::PoolMode::kMax && mode != u85::PoolMode::kMin && mode != u85::PoolMode::kSum &&
      mode != u85::PoolMode::kAverage && mode != u85::PoolMode::kNone && !reduce) {
    return Status::error(Fault::kUnsupported, "%s on Ethos-U85 is not modelled yet",
                         u85::pool_mode_name(static_cast<uint32_t>(mode)));
  }
  const RegisterFile& regs = ctx.regs;
  const OfmShape ofm = ofm_shape(regs);
  KernelGeometry k;
  NPU_MODEL_RETURN_IF_ERROR(kernel_geometry_from_registers(regs, ofm, &k));
  if (mode == u85::PoolMode::kNone && k.taps_h * k.taps_w != 1) {
    return Status::error(Fault::kUnsupported, "POOL NONE with a %dx%d window", k.taps_h, k.taps_w);
  }
  OutputStage out;
  NPU_MODEL_RETURN_IF_ERROR(output_stage_u85(ctx, &out));
  FeatureMap ifm_map;
  NPU_MODEL_RETURN_IF_ERROR(feature_map_u85(regs, ctx.memory, Operand::kIfm, &ifm_map));
  // REDUCE_SUM reads every IFM channel for each OFM element; the other modes one.
  const int64_t ifm_c = reduce ? int64_t{regs.get(u85::Cmd0::kIfmDepthM1)} + 1 : ofm.c;
  NPU_MODEL_RETURN_IF_ERROR(check_work(ctx, "pooling",
                                       {static_cast<uint64_t>(ofm.h * ofm.w * ofm.c), static_cast<uint64_t>(k.taps_h),
                                        static_cast<uint64_t>(k.taps_w), static_cast<uint64_t>(reduce ? ifm_c : 1)}));
  NPU_MODEL_RETURN_IF_ERROR(check_work(ctx, "the IFM", {static_cast<uint64_t>(k.ifm_h),
                                                        static_cast<uint64_t>(k.ifm_w), static_cast<uint64_t>(ifm_c)}));
  int32_t* ifm = nullptr;
  NPU_MODEL_RETURN_IF_ERROR(load_ifm(ctx, ifm_map, k, ifm_c, &ifm));
  NPU_MODEL_RETURN_IF_ERROR(check_accumulator_output_u85(regs));
  const int64_t* initial = nullptr;
  NPU_MODEL_RETURN_IF_ERROR(initial_accumulators_u85(ctx, ofm, &initial));
  const bool extremum = mode == u85::PoolMode::kMax || mode == u85::PoolMode::kMin;
  const bool kept = regs.get(u85::Cmd0::kAccFormat, u85::kAccInput) == static_cast<uint32_t>(u85::AccInput::kKeep);
  if (initial != nullptr && mode != u85::PoolMode::kSum && mode != u85::PoolMode::kNone && !reduce &&
      !(extremum && kept)) {
    return Status::error(Fault::kUnsupported, "%s starting from %s accumulators is not modelled yet",
                         u85::pool_mode_name(static_cast<uint32_t>(mode)), kept ? "kept" : "IFM2's");
  }
  ChannelScale* scales = nullptr;
  if (out.per_channel) {
    NPU_MODEL_RETURN_IF_ERROR(load_scales_u85(ctx, ofm.c, &scales));
  }
  int32_t* result = nullptr;
  NPU_MODEL_RETURN_IF_ERROR(ctx.workspace.allocate(static_cast<size_t>(ofm.h * ofm.w * ofm.c), "OFM", &result));
  int64_t* accumulators = nullptr;
  NPU_MODEL_RETURN_IF_ERROR(
      ctx.workspace.allocate(static_cast<size_t>(ofm.h * ofm.w * ofm.c), "accumulators", &accumulators));

  int32_t* r = result;
  int64_t* a = accumulators;
  for (int64_t oy = 0; oy < ofm.h; ++oy) {
    for (int64_t ox = 0; ox < ofm.w; ++ox) {
      for (int64_t oc = 0; oc < ofm.c; ++oc) {
        const int64_t start = initial != nullptr ? initial[a - accumulators] : 0;
        if (initial != nullptr && mode == u85::PoolMode::kNone) {
          *a++ = start;
          *r++ = finish(out, scales, oc, start);
          continue;
        }
        int64_t acc = start;
        // A kept MAX or MIN counts as a tap already seen.
        int64_t taps = initial != nullptr && extremum ? 1 : 0;
        for_each_tap(k, oy, ox, [&](int, int, int64_t iy, int64_t ix) {
          if (reduce) {
            for (int64_t ic = 0; ic < ifm_c; ++ic) {
              acc += ifm[(iy * k.ifm_w + ix) * ifm_c + ic];
            }
            ++taps;
            return;
          }
          const int64_t v = ifm[(iy * k.ifm_w + ix) * ifm_c + oc];
          if (mode == u85::PoolMode::kSum || mode == u85::PoolMode::kAverage || mode == u85::PoolMode::kNone) {
            acc += v;
          } else if (taps == 0 || (mode == u85::PoolMode::kMax ? v > acc : v < acc)) {
            acc = v;
          }
          ++taps;
        });
        if (taps == 0 && (extremum || mode == u85::PoolMode::kAverage)) {
          return Status::error(Fault::kUnsupported, "a pooling window entirely in the padding");
        }
        if (mode == u85::PoolMode::kAverage) {
          acc = divide_by_taps(acc, taps);
        }
        *a++ = acc;
        *r++ = finish(out, scales, oc, acc);
      }
    }
  }
  NPU_MODEL_RETURN_IF_ERROR(ctx.accumulators->store(ofm.h, ofm.w, ofm.c, accumulators));
  return store_ofm_u85(ctx, out.ofm, ofm, result);
}

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
