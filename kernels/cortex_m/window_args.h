// The arguments of the cortex_m kernels that slide a window over an NHWC image, read and checked once.
//
// cortex_m::quantized_conv2d and cortex_m::quantized_depthwise_conv2d:
// an int8 NHWC input, an input zero point, int8 weights (the op's layout: [C_out, KH, KW, C_in] or
// [1, KH, KW, C_out]), an int32 bias [C_out], int32 multipliers/shifts [C_out], stride/padding/dilation as [h, w],
// then (after any op-specific ints) the output zero point, the clamp range, the scratch bytes recorded for CMSIS-NN
// and the NHWC int8 out tensor, resized to [N, OH, OW, C_out]. python/etarm/cortex_m/ops/convolution.py. Where the kernel allows int16 activations
// (a16w8): an int16 input and output, zero points 0, an int64 bias, the clamp within [-32767, 32767].
#pragma once

#include <cstdint>

#include "kernels/portable/kernel_util.h"

namespace etarm {
namespace kernels {
namespace cortex_m {

struct Conv2dArgs {
  const Tensor* input;
  const Tensor* weight;
  const Tensor* bias;
  const Tensor* multipliers;
  const Tensor* shifts;
  Tensor* out;
  int32_t input_zero_point, output_zero_point, activation_min, activation_max;
  int32_t stride_h, stride_w, padding_h, padding_w, dilation_h, dilation_w;
  // Input [n, in_h, in_w, in_c], kernel [kernel_h, kernel_w], output [n, out_h, out_w, out_c].
  int32_t n, in_h, in_w, in_c, kernel_h, kernel_w, out_h, out_w, out_c;
  int32_t weight_d0, weight_d3;  // the weight's first and last dims (of its shape argument when packed)
  bool s16;  // int16 activations and an int64 bias (a16w8)
  bool s4;  // int4 weights packed two per byte (a8w4): `weight` is int8 [ceil(count / 2)] of the shape argument
  // The scratch bytes the compiler recorded for CMSIS-NN on the program's code path (the op's last argument).
  int32_t scratch_bytes;
};

// Where the weight's layout keeps the output channels: dim 0 (OHWI) or dim 3 (1HWC).
enum class OutChannelsAt { kFirst, kLast };

// Reads the arguments from the stack (the output zero point at `output_at`, the clamp range and out after it),
// checks them and resizes out; int16 activations only when `int16_allowed`. With `packed_int4` (the _s4 ops) the
// weight is CMSIS-NN's packed int4 (python/etarm/cortex_m/int4.py): int8 [ceil(count / 2)], its 4-D shape the int
// list after the clamp range (before the scratch bytes); int8 activations only. Returns nullptr, or what is wrong.
const char* conv2d_args(
    Span<EValue*> stack, size_t output_at, OutChannelsAt layout, Conv2dArgs* a, bool int16_allowed = false,
    bool packed_int4 = false);

// cortex_m::quantized_max_pool2d and cortex_m::quantized_avg_pool2d: an int8 NHWC input, kernel_size, stride and
// padding as [h, w] (padding at most half the kernel, so every window holds a tap), the clamp range and the NHWC int8
// out tensor, resized to [N, OH, OW, C]. python/etarm/cortex_m/ops/quantized_max_pool2d.py. Or int16 input and output
// (a16w8) with the clamp within [-32767, 32767].
struct Pool2dArgs {
  const Tensor* input;
  Tensor* out;
  int32_t activation_min, activation_max;
  int32_t kernel_h, kernel_w, stride_h, stride_w, padding_h, padding_w;
  int32_t n, in_h, in_w, c, out_h, out_w;
  bool s16;  // int16 activations (a16w8)
  int32_t scratch_bytes = 0;  // with_scratch: the scratch bytes recorded for CMSIS-NN (after the clamp range)
};

// Reads the arguments from the stack (input, kernel_size, stride, padding, activation_min, activation_max,
// [scratch_bytes when `with_scratch`,] out), checks them and resizes out. Returns nullptr, or what is wrong.
const char* pool2d_args(Span<EValue*> stack, Pool2dArgs* a, bool with_scratch = false);

// CMSIS-NN's scratch buffer of `bytes` (its get_buffer_size answer for this build and these shapes) from the
// method's temporary allocator: nullptr for 0 bytes; false when it cannot be had.
bool scratch_buffer(KernelRuntimeContext& ctx, int32_t bytes, void** buffer);

// CMSIS-NN's scratch for a call whose size function answers `needed`, checked against the `recorded` size the
// compiler computed for the program's code path (python/etarm/cortex_m/scratch_sizes.py). A Cortex-M image runs that
// path (cortex_m::cpu_variant checks), so a recorded size below the call's fails the kernel (corrupt, or compiled
// for another path). Host and Linux builds run plain C as a model of every path, whose sizes can exceed another
// path's: they take the larger. Logs and fails `ctx` naming `op` when it returns false; `*size` is the buffer's.
bool recorded_scratch(
    KernelRuntimeContext& ctx, const char* op, int32_t recorded, int32_t needed, void** buffer, int32_t* size);

} // namespace cortex_m
} // namespace kernels
} // namespace etarm
