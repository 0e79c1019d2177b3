// NPU_OP_POOL on Ethos-U85: over the window's taps inside the IFM (padding taps skipped),
//   MAX, MIN  the largest / smallest (ifm - zero point) of each channel;
//   SUM       the sum of each channel (Vela's average pooling with kernels above 8x8 and its
//             1x1 copies, rescales and layout transposes; 1 / taps is folded into OFM_SCALE);
//   AVERAGE   the sum divided by the number of taps inside the IFM, as TOSA's AVG_POOL2D
//             divides: times the reciprocal multiplier ((2^30 + 1) << k) / n, shifted right
//             by 30 + k with round half up, where 2^(k-1) < n <= 2^k;
//   NONE      the IFM element itself (a 1x1 window: Vela's copies, rescales and transposes);
// then the output stage with the global OFM_SCALE and the OFM transpose. REDUCE_SUM and the
// ARGMAX modes fail as not modelled.
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

}  // namespace

Status run_pooling_u85(const OperationContext& ctx, u85::PoolMode mode) {
  if (mode != u85::PoolMode::kMax && mode != u85::PoolMode::kMin && mode != u85::PoolMode::kSum &&
      mode != u85::PoolMode::kAverage && mode != u85::PoolMode::kNone) {
    return Status::error(Fault::kUnsupported, "%s on Ethos-U85 is not modelled yet",
                         u85::pool_mode_name(static_cast<uint32_t>(mode)));
  }
  const RegisterFile& regs = ctx.regs;
  if (regs.get(u85::Cmd0::kAccFormat, u85::kAccInput) != static_cast<uint32_t>(u85::AccInput::kReset) ||
      regs.get(u85::Cmd0::kAccFormat, u85::kAccOutput) != static_cast<uint32_t>(u85::AccOutput::kEnable)) {
    return Status::error(Fault::kUnsupported, "accumulator input/output modes are not modelled yet");
  }
  const OfmShape ofm = ofm_shape(regs);
  KernelGeometry k;
  NPU_MODEL_RETURN_IF_ERROR(kernel_geometry_from_registers(regs, ofm, &k));
  if (mode == u85::PoolMode::kNone && k.taps_h * k.taps_w != 1) {
    return Status::error(Fault::kUnsupported, "POOL NONE with a %dx%d window", k.taps_h, k.taps_w);
  }
  OutputStage out;
  NPU_MODEL_RETURN_IF_ERROR(output_stage_u85(ctx, &out));
  if (out.per_channel) {
    return Status::error(Fault::kUnsupported, "per-channel scaling of pooling on Ethos-U85 is not modelled yet");
  }
  FeatureMap ifm_map;
  NPU_MODEL_RETURN_IF_ERROR(feature_map_u85(regs, ctx.memory, Operand::kIfm, &ifm_map));
  NPU_MODEL_RETURN_IF_ERROR(check_work(ctx, "pooling",
                                       {static_cast<uint64_t>(ofm.h * ofm.w * ofm.c), static_cast<uint64_t>(k.taps_h),
                                        static_cast<uint64_t>(k.taps_w)}));
  NPU_MODEL_RETURN_IF_ERROR(check_work(ctx, "the IFM", {static_cast<uint64_t>(k.ifm_h),
                                                        static_cast<uint64_t>(k.ifm_w), static_cast<uint64_t>(ofm.c)}));
  int32_t* ifm = nullptr;
  NPU_MODEL_RETURN_IF_ERROR(load_ifm(ctx, ifm_map, k, ofm.c, &ifm));
  int32_t* result = nullptr;
  NPU_MODEL_RETURN_IF_ERROR(ctx.workspace.allocate(static_cast<size_t>(ofm.h * ofm.w * ofm.c), "OFM", &result));

  int32_t* r = result;
  for (int64_t oy = 0; oy < ofm.h; ++oy) {
    for (int64_t ox = 0; ox < ofm.w; ++ox) {
      for (int64_t oc = 0; oc < ofm.c; ++oc) {
        int64_t acc = 0;
        int64_t taps = 0;
        for (int ky = 0; ky < k.taps_h; ++ky) {
          const int64_t iy = oy * k.stride_y - k.pad_top + int64_t{ky} * k.dilation_y;
          if (iy < 0 || iy >= k.ifm_h) continue;
          for (int kx = 0; kx < k.taps_w; ++kx) {
            const int64_t ix = ox * k.stride_x - k.pad_left + int64_t{kx} * k.dilation_x;
            if (ix < 0 || ix >= k.ifm_w) continue;
            const int64_t v = ifm[(iy * k.ifm_w + ix) * ofm.c + oc];
            if (mode == u85::PoolMode::kSum || mode == u85::PoolMode::kAverage || mode == u85::PoolMode::kNone) {
              acc += v;
            } else if (taps == 0 || (mode == u85::PoolMode::kMax ? v > acc : v < acc)) {
              acc = v;
            }
            ++taps;
          }
        }
        if (taps == 0 && (mode == u85::PoolMode::kMax || mode == u85::PoolMode::kMin ||
                          mode == u85::PoolMode::kAverage)) {
          return Status::error(Fault::kUnsupported, "a pooling window entirely in the padding");
        }
        if (mode == u85::PoolMode::kAverage) {
          acc = divide_by_taps(acc, taps);
        }
        *r++ = out.finish_global(acc);
      }
    }
  }
  return store_ofm_u85(ctx, out.ofm, ofm, result);
}

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
