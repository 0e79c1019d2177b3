// What every NPU operation shares: its context (registers, memory, NPU configuration, work
// memory), the output stage (scaling, zero point, activation clamp, look-up table), the
// kernel geometry of convolutions and pooling, and loading an operation's weights and
// per-channel scales. The operations themselves live one per file (convolution.cc,
// pooling.cc, elementwise.cc, dma.cc) and are declared at the end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "runtime/ethosu/npu_model/accelerator.h"
#include "runtime/ethosu/npu_model/accumulators.h"
#include "runtime/ethosu/npu_model/chain_buffers.h"
#include "runtime/ethosu/npu_model/feature_map.h"
#include "runtime/ethosu/npu_model/isa.h"
#include "runtime/ethosu/npu_model/memory.h"
#include "runtime/ethosu/npu_model/registers.h"
#include "runtime/ethosu/npu_model/scale_records.h"
#include "runtime/ethosu/npu_model/status.h"
#include "runtime/ethosu/npu_model/workspace.h"

namespace etarm {
namespace ethosu {
namespace npu_model {

class WeightObserverU85;  // weight_layout_u85.h

struct OperationContext {
  const RegisterFile& regs;
  const Memory& memory;
  const Accelerator& accelerator;
  Workspace& workspace;
  uint64_t work_limit;  // most multiply-accumulates (or elements) one operation may take; 0: any
  ChainBuffers* chains;  // Ethos-U85's chaining buffers (nullptr on U55/U65)
  Accumulators* accumulators;  // Ethos-U85's accumulators kept across operations (nullptr on U55/U65)
  WeightObserverU85* weight_observer = nullptr;  // told of U85 convolutions' decoded weights (tests)
};

// An error when `work` (a product of sizes, computed without overflow) exceeds the limit.
Status check_work(const OperationContext& ctx, const char* what, std::initializer_list<uint64_t> factors);

// OFM_HEIGHT/WIDTH/DEPTH: the block of the OFM this operation writes.
struct OfmShape {
  int64_t h, w, c;
};
OfmShape ofm_shape(const RegisterFile& regs);

// From the accumulator to the stored value:
//   v = acc * scale >> shift (rounded as OFM_PRECISION says), scale and shift per channel
//       (the scale stream) or global (OFM_SCALE);
//   v += OFM zero point;
//   clamp to the activation range: ACTIVATION_MIN/MAX within the OFM type (or the type
//       ACTIVATION's clip range forces); 32-bit OFMs clamp to int32 only;
//   TABLE_n activations look v up in the n-th 256-byte table at the end of the SHRAM.
struct OutputStage {
  FeatureMap ofm;
  RoundMode round;
  bool per_channel;
  uint32_t global_scale;
  uint32_t global_shift;
  int64_t lo, hi;
  const uint8_t* lut;  // 256 entries, or nullptr
  // Ethos-U85's LUT_S16_S32: 512 (base, slope) pairs of int16 (2 KiB), or nullptr. The int16
  // result u (+ 32768) picks pair u >> 7 and gives base * 128 + slope * (u & 127): TOSA's
  // interpolating int16 TABLE with Vela's table of base and next - base. [lo, hi] clips u;
  // the result only saturates to the OFM type.
  const uint8_t* lut_s16_s32;
  // LUT_S16_S16 reads the same table into an int16 OFM: the int32 interpolation divided by 128,
  // round half up ((r + 64) >> 7; what Vela fuses a TABLE and its following RESCALE by 1/128
  // into), then saturated to the OFM type.
  bool lut_to_int16;
  // Keep the result's low bits (an 8- or 16-bit OFM without clipping: U85's clip range NONE,
  // which Vela uses for TOSA's wrapping CAST) instead of clamping to [lo, hi].
  bool wrap;

  int32_t finish(int64_t acc, uint32_t scale, uint32_t shift) const;
  int32_t finish_global(int64_t acc) const {
    return finish(acc, global_scale, global_shift);
  }
  // For Ethos-U85's 64-bit OFMs (no look-up table, no wrapping): scaled, zero point added,
  // clamped to [lo, hi].
  int64_t finish_wide(int64_t acc, uint32_t scale, uint32_t shift) const;
};
Status output_stage_from_registers(const OperationContext& ctx, OutputStage* out);

// A convolution's or pooling's window: the kernel registers hold the dilated size.
struct KernelGeometry {
  int taps_h, taps_w;          // kernel taps without dilation
  int dilation_y, dilation_x;  // 1 or 2
  int stride_y, stride_x;      // 1..4
  int pad_top, pad_left, pad_bottom, pad_right;
  // The IFM the window reads: the hardware has no IFM height and width registers; they
  // follow from the OFM size, the window and the padding. With IFM_UPSCALE these are the
  // upscaled sizes (twice the stored IFM's, rounded up).
  int64_t ifm_h, ifm_w;
  UpscaleMode upscale;
};
Status kernel_geometry_from_registers(const RegisterFile& regs, const OfmShape& ofm, KernelGeometry* out);

// Calls visit(ky, kx, iy, ix) for each tap (ky, kx) of output (oy, ox)'s window that reads IFM
// row iy, column ix; taps in the padding are skipped.
template <typename Visit>
inline void for_each_tap(const KernelGeometry& k, int64_t oy, int64_t ox, Visit&& visit) {
  for (int ky = 0; ky < k.taps_h; ++ky) {
    const int64_t iy = oy * k.stride_y - k.pad_top + int64_t{ky} * k.dilation_y;
    if (iy < 0 || iy >= k.ifm_h) continue;
    for (int kx = 0; kx < k.taps_w; ++kx) {
      const int64_t ix = ox * k.stride_x - k.pad_left + int64_t{kx} * k.dilation_x;
      if (ix < 0 || ix >= k.ifm_w) continue;
      visit(ky, kx, iy, ix);
    }
  }
}

// The IFM as the window sees it: dense ifm_h x ifm_w x `channels` with the zero point
// removed. IFM_UPSCALE NEAREST repeats each stored element 2x2; ZEROS puts it at the even
// positions and zeros elsewhere.
Status load_ifm(const OperationContext& ctx, const FeatureMap& ifm, const KernelGeometry& k, int64_t channels,
                int32_t** out);

// The operation's per-channel records: bias, scale and shift for each of `channels` OFM
// channels (split among the cores as the weights are).
Status load_channel_scales(const OperationContext& ctx, int64_t channels, ChannelScale** out);

// The operation's weights decoded and placed as [ofm][ky][kx][ifm] (ifm extent 1 for
// depthwise).
Status load_weights(const OperationContext& ctx, bool depthwise, int64_t ofm_depth, int64_t ifm_depth,
                    const KernelGeometry& kernel, int16_t** out);

// The sum of the products of OFM element (oy, ox, oc)'s window (taps in the padding
// contribute nothing): its accumulator before the bias (convolution.cc).
int64_t convolution_window_sum(const KernelGeometry& k, bool depthwise, int64_t ifm_c, const int32_t* ifm,
                               const int16_t* weights, int64_t oy, int64_t ox, int64_t oc);

// The arithmetic of a convolution (convolution.cc): `result` (ofm.h x ofm.w x ofm.c) from the
// dense IFM (load_ifm), the weights [ofm][ky][kx][ifm] and the channel scales (nullptr: the
// global scale).
void convolve(const KernelGeometry& k, const OfmShape& ofm, bool depthwise, int64_t ifm_c, const int32_t* ifm,
              const int16_t* weights, const ChannelScale* scales, const OutputStage& out, int32_t* result);

// The operations.
Status run_convolution(const OperationContext& ctx, bool depthwise);
Status run_pooling(const OperationContext& ctx, PoolMode mode);
Status run_elementwise(const OperationContext& ctx, ElementwiseMode mode);
Status run_dma(const OperationContext& ctx);

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
