// NPU_OP_RESIZE on Ethos-U85: TOSA's RESIZE of an IFM of KERNEL_HEIGHT x KERNEL_WIDTH elements
// (Vela puts the IFM size the operation reads there) to the OFM size. Along each axis the
// scale is n / d, with n = RESIZE_*_SCALE_N_M1 + 1 and d = one_step_int * n + one_step_mod of
// RESIZE_X / RESIZE_Y (the hardware's per-element step; its per-block step follows from it),
// and the offset is RESIZE_*_OFFSET. OFM element o maps to position p = o * d + offset, input
// index i = floor(p / n) and remainder r = p - i * n; neighbours i and i + 1 are clamped to
// the IFM. (Fields: n - 1 in 11 bits, the offset 12-bit two's complement.)
//   NEAREST   the neighbour i + 1 when 2 * r >= n, else i;
//   BILINEAR  the four neighbours weighted by (n_y - r_y or r_y) * (n_x - r_x or r_x), TOSA's
//             integer sum (unnormalised: Vela folds 1 / (n_y * n_x) into the OFM scale);
// (IFM element - zero point throughout). The hardware keeps 16 fraction bits: the sum is
// shifted left by 16 and OFM_SCALE (Vela: multiplier 1, shift 16 + the rescale's shift)
// takes them off in the output stage; then the OFM transpose. REPLICATE is not modelled.
#include "runtime/ethosu/npu_model/operation_u85.h"

namespace etarm {
namespace ethosu {
namespace npu_model {
namespace {

constexpr int kFractionBits = 16;

// One axis of the resize: scale n / d and offset.
struct ResizeAxis {
  int64_t n, d, offset, ifm_size;

  // The input index and remainder of output position o.
  void locate(int64_t o, int64_t* index, int64_t* remainder) const {
    const int64_t p = o * d + offset;
    int64_t i = p / n;
    if (i * n > p) --i;  // floor for negative positions
    *index = i;
    *remainder = p - i * n;
  }
  int64_t clamped(int64_t i) const {
    return i < 0 ? 0 : (i >= ifm_size ? ifm_size - 1 : i);
  }
};

ResizeAxis axis_from_registers(const RegisterFile& regs, u85::Cmd0 scale_n_m1, u85::Cmd1 step, u85::Cmd0 offset,
                               int64_t ifm_size) {
  ResizeAxis a{};
  a.n = int64_t{regs.get(scale_n_m1) & 0x7FFu} + 1;
  const uint64_t steps = regs.get(step);
  const int64_t one_step_int = static_cast<int64_t>((steps >> 32) & 0xF);  // first word, bits 16..19
  const int64_t one_step_mod = static_cast<int64_t>(steps & 0x7FF);        // payload, bits 0..10
  a.d = one_step_int * a.n + one_step_mod;
  const int64_t offset_field = regs.get(offset) & 0xFFFu;  // 12-bit two's complement
  a.offset = offset_field >= 0x800 ? offset_field - 0x1000 : offset_field;
  a.ifm_size = ifm_size;
  return a;
}

}  // namespace

Status run_resize_u85(const OperationContext& ctx, u85::ResizeMode mode) {
  if (mode == u85::ResizeMode::kReplicate) {
    return Status::error(Fault::kUnsupported, "RESIZE REPLICATE is not modelled yet");
  }
  if (mode != u85::ResizeMode::kNearest && mode != u85::ResizeMode::kBilinear) {
    return Status::error(Fault::kMalformedStream, "RESIZE has the reserved mode %u", static_cast<unsigned>(mode));
  }
  const RegisterFile& regs = ctx.regs;
  if (regs.get(u85::Cmd0::kIfmUpscale, u85::kUpscaleMode) != 0) {
    return Status::error(Fault::kUnsupported, "IFM upscaling of a RESIZE is not modelled yet");
  }
  if (regs.get(u85::Cmd0::kAccFormat, u85::kAccInput) != static_cast<uint32_t>(u85::AccInput::kReset) ||
      regs.get(u85::Cmd0::kAccFormat, u85::kAccOutput) != static_cast<uint32_t>(u85::AccOutput::kEnable)) {
    return Status::error(Fault::kUnsupported, "accumulator input/output modes of a RESIZE are not modelled yet");
  }
  const OfmShape ofm = ofm_shape(regs);
  const int64_t ifm_h = int64_t{regs.get(u85::Cmd0::kKernelHeightM1)} + 1;
  const int64_t ifm_w = int64_t{regs.get(u85::Cmd0::kKernelWidthM1)} + 1;
  const ResizeAxis ay = axis_from_registers(regs, u85::Cmd0::kResizeYScaleNM1, u85::Cmd1::kResizeY,
                                            u85::Cmd0::kResizeYOffset, ifm_h);
  const ResizeAxis ax = axis_from_registers(regs, u85::Cmd0::kResizeXScaleNM1, u85::Cmd1::kResizeX,
                                            u85::Cmd0::kResizeXOffset, ifm_w);
  NPU_MODEL_RETURN_IF_ERROR(check_work(ctx, "resize", {static_cast<uint64_t>(ofm.h * ofm.w * ofm.c), 4}));
  OutputStage out;
  NPU_MODEL_RETURN_IF_ERROR(output_stage_u85(ctx, &out));
  if (out.per_channel) {
    return Status::error(Fault::kUnsupported, "per-channel scaling of a RESIZE");
  }
  FeatureMap ifm;
  NPU_MODEL_RETURN_IF_ERROR(feature_map_u85(regs, ctx.memory, Operand::kIfm, &ifm));
  if (is_chained_u85(regs, Operand::kIfm)) {
    return Status::error(Fault::kUnsupported, "a chained IFM of a RESIZE is not modelled yet");
  }
  int32_t* result = nullptr;
  NPU_MODEL_RETURN_IF_ERROR(ctx.workspace.allocate(static_cast<size_t>(ofm.h * ofm.w * ofm.c), "OFM", &result));
  const bool bilinear = mode == u85::ResizeMode::kBilinear;
  int32_t* r = result;
  for (int64_t oy = 0; oy < ofm.h; ++oy) {
    int64_t iy = 0, ry = 0;
    ay.locate(oy, &iy, &ry);
    for (int64_t ox = 0; ox < ofm.w; ++ox) {
      int64_t ix = 0, rx = 0;
      ax.locate(ox, &ix, &rx);
      for (int64_t c = 0; c < ofm.c; ++c) {
        int64_t acc = 0;
        if (bilinear) {
          const int64_t ys[2] = {ay.clamped(iy), ay.clamped(iy + 1)};
          const int64_t xs[2] = {ax.clamped(ix), ax.clamped(ix + 1)};
          const int64_t wy[2] = {ay.n - ry, ry};
          const int64_t wx[2] = {ax.n - rx, rx};
          for (int j = 0; j < 2; ++j) {
            for (int i = 0; i < 2; ++i) {
              int32_t v = 0;
              NPU_MODEL_RETURN_IF_ERROR(ifm.read(ys[j], xs[i], c, &v));
              acc += (int64_t{v} - ifm.zero_point) * wy[j] * wx[i];
            }
          }
        } else {
          int32_t v = 0;
          NPU_MODEL_RETURN_IF_ERROR(ifm.read(ay.clamped(2 * ry >= ay.n ? iy + 1 : iy),
                                             ax.clamped(2 * rx >= ax.n ? ix + 1 : ix), c, &v));
          acc = int64_t{v} - ifm.zero_point;
        }
        *r++ = out.finish_global(acc * (int64_t{1} << kFractionBits));
      }
    }
  }
  return store_ofm_u85(ctx, out.ofm, ofm, result);
}

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
