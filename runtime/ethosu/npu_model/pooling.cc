// NPU_OP_POOL: over the window's taps inside the IFM (padding taps are skipped),
//   MAX         the largest (ifm - zero point) of each channel;
//   AVERAGE     the sum of each channel; the output stage's scale turns it into the mean
//               (Vela folds 1 / taps into OFM_SCALE; it also moves data with 1x1 averages);
//   REDUCE_SUM  the sum over the window and all IFM channels, into OFM channel 0 .. depth-1
//               alike (Vela uses it with a 1x1 window and a one-channel OFM).
// Then the output stage: the global OFM_SCALE, or per-channel records when OFM_PRECISION
// asks for them.
#include "runtime/ethosu/npu_model/operation.h"

namespace etarm {
namespace ethosu {
namespace npu_model {

Status run_pooling(const OperationContext& ctx, PoolMode mode) {
  const RegisterFile& regs = ctx.regs;
  const OfmShape ofm = ofm_shape(regs);
  KernelGeometry k;
  NPU_MODEL_RETURN_IF_ERROR(kernel_geometry_from_registers(regs, ofm, &k));
  if (mode == PoolMode::kAverage && (k.pad_top | k.pad_left | k.pad_bottom | k.pad_right) != 0) {
    return Status::error(Fault::kUnsupported, "average pooling with padding (hardware-computed divisors)");
  }
  if (static_cast<uint32_t>(mode) > static_cast<uint32_t>(PoolMode::kReduceSum)) {
    return Status::error(Fault::kMalformedStream, "reserved pooling mode %u", static_cast<unsigned>(mode));
  }
  OutputStage out;
  NPU_MODEL_RETURN_IF_ERROR(output_stage_from_registers(ctx, &out));
  FeatureMap ifm_map;
  NPU_MODEL_RETURN_IF_ERROR(feature_map_from_registers(regs, ctx.memory, Operand::kIfm, &ifm_map));
  const int64_t ifm_c = mode == PoolMode::kReduceSum ? int64_t{regs.get(Cmd0::kIfmDepthM1)} + 1 : ofm.c;
  NPU_MODEL_RETURN_IF_ERROR(check_work(
      ctx, "pooling",
      {static_cast<uint64_t>(ofm.h * ofm.w * ofm.c), static_cast<uint64_t>(k.taps_h), static_cast<uint64_t>(k.taps_w),
       static_cast<uint64_t>(mode == PoolMode::kReduceSum ? ifm_c : 1)}));
  NPU_MODEL_RETURN_IF_ERROR(check_work(ctx, "the IFM", {static_cast<uint64_t>(k.ifm_h),
                                                        static_cast<uint64_t>(k.ifm_w), static_cast<uint64_t>(ifm_c)}));

  int32_t* ifm = nullptr;
  NPU_MODEL_RETURN_IF_ERROR(load_ifm(ctx, ifm_map, k, ifm_c, &ifm));
  ChannelScale* scales = nullptr;
  if (out.per_channel) {
    NPU_MODEL_RETURN_IF_ERROR(load_channel_scales(ctx, ofm.c, &scales));
  }
  int32_t* result = nullptr;
  NPU_MODEL_RETURN_IF_ERROR(ctx.workspace.allocate(static_cast<size_t>(ofm.h * ofm.w * ofm.c), "OFM", &result));

  int32_t* r = result;
  for (int64_t oy = 0; oy < ofm.h; ++oy) {
    for (int64_t ox = 0; ox < ofm.w; ++ox) {
      for (int64_t oc = 0; oc < ofm.c; ++oc) {
        int64_t acc = mode == PoolMode::kMax ? INT64_MIN : 0;
        for_each_tap(k, oy, ox, [&](int, int, int64_t iy, int64_t ix) {
          const int32_t* in = ifm + (iy * k.ifm_w + ix) * ifm_c;
          if (mode == PoolMode::kMax) {
            const int64_t v = in[oc];
            acc = v > acc ? v : acc;
          } else if (mode == PoolMode::kAverage) {
            acc += in[oc];
          } else {
            for (int64_t ic = 0; ic < ifm_c; ++ic) {
              acc += in[ic];
            }
          }
        });
        if (acc == INT64_MIN) {
          acc = ifm_map.type_min() - ifm_map.zero_point;  // a window entirely in the padding
        }
        if (scales != nullptr) {
          *r++ = out.finish(acc + scales[oc].bias, scales[oc].scale, scales[oc].shift);
        } else {
          *r++ = out.finish_global(acc);
        }
      }
    }
  }
  return store_feature_map(out.ofm, ofm.h, ofm.w, ofm.c, result);
}

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
