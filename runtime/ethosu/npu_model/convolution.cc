// NPU_OP_CONV and NPU_OP_DEPTHWISE: for each OFM element,
//   acc = bias[oc] + sum over the window's taps inside the IFM and the IFM channels of
//         (ifm - IFM zero point) * weight
// (taps in the padding contribute nothing), then the output stage with the channel's
// scale and shift. Depthwise reads IFM channel oc only. A fully connected layer is a 1x1
// convolution.
#include "runtime/ethosu/npu_model/operation.h"

namespace etarm {
namespace ethosu {
namespace npu_model {

int64_t convolution_window_sum(const KernelGeometry& k, bool depthwise, int64_t ifm_c, const int32_t* ifm,
                               const int16_t* weights, int64_t oy, int64_t ox, int64_t oc) {
  const int64_t weight_ic = depthwise ? 1 : ifm_c;
  int64_t acc = 0;
  for_each_tap(k, oy, ox, [&](int ky, int kx, int64_t iy, int64_t ix) {
    const int32_t* in = ifm + (iy * k.ifm_w + ix) * ifm_c;
    const int16_t* w = weights + ((oc * k.taps_h + ky) * k.taps_w + kx) * weight_ic;
    if (depthwise) {
      acc += int64_t{in[oc]} * w[0];
    } else {
      int64_t sum = 0;
      for (int64_t ic = 0; ic < ifm_c; ++ic) {
        sum += int64_t{in[ic]} * w[ic];
      }
      acc += sum;
    }
  });
  return acc;
}

void convolve(const KernelGeometry& k, const OfmShape& ofm, bool depthwise, int64_t ifm_c, const int32_t* ifm,
              const int16_t* weights, const ChannelScale* scales, const OutputStage& out, int32_t* result) {
  int32_t* r = result;
  for (int64_t oy = 0; oy < ofm.h; ++oy) {
    for (int64_t ox = 0; ox < ofm.w; ++ox) {
      for (int64_t oc = 0; oc < ofm.c; ++oc) {
        const int64_t acc = (scales != nullptr ? scales[oc].bias : 0) +
                            convolution_window_sum(k, depthwise, ifm_c, ifm, weights, oy, ox, oc);
        *r++ = scales != nullptr ? out.finish(acc, scales[oc].scale, scales[oc].shift) : out.finish_global(acc);
      }
    }
  }
}

Status run_convolution(const OperationContext& ctx, bool depthwise) {
  const RegisterFile& regs = ctx.regs;
  const OfmShape ofm = ofm_shape(regs);
  KernelGeometry k;
  NPU_MODEL_RETURN_IF_ERROR(kernel_geometry_from_registers(regs, ofm, &k));
  OutputStage out;
  NPU_MODEL_RETURN_IF_ERROR(output_stage_from_registers(ctx, &out));
  FeatureMap ifm_map;
  NPU_MODEL_RETURN_IF_ERROR(feature_map_from_registers(regs, ctx.memory, Operand::kIfm, &ifm_map));
  const int64_t ifm_c = depthwise ? ofm.c : int64_t{regs.get(Cmd0::kIfmDepthM1)} + 1;
  NPU_MODEL_RETURN_IF_ERROR(check_work(ctx, "convolution",
                                       {static_cast<uint64_t>(ofm.h * ofm.w * ofm.c), static_cast<uint64_t>(k.taps_h),
                                        static_cast<uint64_t>(k.taps_w), static_cast<uint64_t>(depthwise ? 1 : ifm_c)}));
  NPU_MODEL_RETURN_IF_ERROR(check_work(ctx, "the IFM", {static_cast<uint64_t>(k.ifm_h),
                                                        static_cast<uint64_t>(k.ifm_w), static_cast<uint64_t>(ifm_c)}));

  int32_t* ifm = nullptr;
  NPU_MODEL_RETURN_IF_ERROR(load_ifm(ctx, ifm_map, k, ifm_c, &ifm));
  int16_t* weights = nullptr;
  NPU_MODEL_RETURN_IF_ERROR(load_weights(ctx, depthwise, ofm.c, ifm_c, k, &weights));
  ChannelScale* scales = nullptr;
  if (out.per_channel) {
    NPU_MODEL_RETURN_IF_ERROR(load_channel_scales(ctx, ofm.c, &scales));
  }
  int32_t* result = nullptr;
  NPU_MODEL_RETURN_IF_ERROR(ctx.workspace.allocate(static_cast<size_t>(ofm.h * ofm.w * ofm.c), "OFM", &result));

  convolve(k, ofm, depthwise, ifm_c, ifm, weights, scales, out, result);
  return store_feature_map(out.ofm, ofm.h, ofm.w, ofm.c, result);
}

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
