// A plain integer reference of the cortex_m convolutions (TOSA's CONV2D / DEPTHWISE_CONV2D in NHWC, then a
// per-channel RESCALE with single rounding, the output zero point and a CLAMP), and the test tensors of one case:
// random int8 NHWC input, int8 weights in the op's layout, int32 bias, per-channel multipliers and shifts. With
// `s16` (a16w8): int16 input and output, an int64 bias, zero points 0, CMSIS-NN's s16 RESCALE (15-bit multiplier).
// With `s4` (a8w4): weights within [-8, 7], also packed two per byte (`packed`) for the _s4 ops.
#pragma once

#include <cstdint>
#include <vector>

#include "arm_nnfunctions.h"
#include "kernels/cortex_m/test/int4_reference.h"
#include "kernels/cortex_m/test/requantize_reference.h"
#include "kernels/testing/harness.h"

namespace etarm {
namespace kernels {
namespace testing {

struct Conv2dCase {
  int32_t n, h, w, in_c, kernel_h, kernel_w, out_c;
  int32_t stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0, dil_h = 1, dil_w = 1;
  // Depthwise: weights [1, KH, KW, C_out], output channel o reading input channel o / (C_out / C_in) only.
  // Otherwise OHWI [C_out, KH, KW, C_in / groups], output channel o reading the input channels of its group only.
  bool depthwise = false;
  int32_t groups = 1;
  int32_t input_zp = 0, output_zp = 0, act_min = -128, act_max = 127;
  bool s16 = false;  // set with int16_activations()
  bool s4 = false;  // set with int4_weights()

  // a8w4: int4 weights (int8 activations), the _s4 ops with CMSIS-NN's s4 kernels.
  Conv2dCase& int4_weights() {
    s4 = true;
    return *this;
  }

  // a16w8: int16 activations over [-32767, 32767], zero points 0.
  Conv2dCase& int16_activations() {
    s16 = true;
    input_zp = output_zp = 0;
    act_min = -32767;
    act_max = 32767;
    return *this;
  }
  ScalarType activations() const {
    return s16 ? ScalarType::Short : ScalarType::Char;
  }

  int32_t out_h() const {
    return (h + 2 * pad_h - dil_h * (kernel_h - 1) - 1) / stride_h + 1;
  }
  int32_t out_w() const {
    return (w + 2 * pad_w - dil_w * (kernel_w - 1) - 1) / stride_w + 1;
  }
  // The scratch_bytes argument: what CMSIS-NN's size function of this build answers (the compiler records it for
  // the code path of the CPU the image runs: python/etarm/cortex_m/scratch_sizes.py). A grouped conv's is per group.
  int32_t scratch_bytes() const {
    const cmsis_nn_dims input = {n, h, w, depthwise ? in_c : in_c / groups};
    const cmsis_nn_dims output = {n, out_h(), out_w(), depthwise ? out_c : out_c / groups};
    if (depthwise) {
      const cmsis_nn_dw_conv_params params = {
          0, 0, out_c / in_c, {stride_w, stride_h}, {pad_w, pad_h}, {dil_w, dil_h}, {act_min, act_max}};
      const cmsis_nn_dims filter = {1, kernel_h, kernel_w, out_c};
      return s4  ? arm_depthwise_conv_wrapper_s4_get_buffer_size(&params, &input, &filter, &output)
             : s16 ? arm_depthwise_conv_wrapper_s16_get_buffer_size(&params, &input, &filter, &output)
                   : arm_depthwise_conv_wrapper_s8_get_buffer_size(&params, &input, &filter, &output);
    }
    const cmsis_nn_conv_params params = {0, 0, {stride_w, stride_h}, {pad_w, pad_h}, {dil_w, dil_h}, {act_min, act_max}};
    const cmsis_nn_dims filter = {out_c / groups, kernel_h, kernel_w, in_c / groups};
    return s4  ? arm_convolve_wrapper_s4_get_buffer_size(&params, &input, &filter, &output)
           : s16 ? arm_convolve_wrapper_s16_get_buffer_size(&params, &input, &filter, &output)
                 : arm_convolve_wrapper_s8_get_buffer_size(&params, &input, &filter, &output);
  }
  std::vector<int32_t> weight_sizes() const {
    return depthwise ? std::vector<int32_t>{1, kernel_h, kernel_w, out_c}
                     : std::vector<int32_t>{out_c, kernel_h, kernel_w, in_c / groups};
  }
};

struct Conv2dData {
  Conv2dCase c;
  TestTensor input, weight, bias, multipliers, shifts;
  TestTensor packed;  // s4: the weight packed two per byte (empty otherwise)

  // Per-channel scales between `scale` and 4 * `scale`.
  Conv2dData(const Conv2dCase& shape, uint32_t seed, double scale)
      : c(shape), input(shape.activations(), {shape.n, shape.h, shape.w, shape.in_c}),
        weight(ScalarType::Char, shape.weight_sizes()),
        bias(shape.s16 ? ScalarType::Long : ScalarType::Int, {shape.out_c}),
        multipliers(ScalarType::Int, {shape.out_c}), shifts(ScalarType::Int, {shape.out_c}),
        packed(ScalarType::Char, {shape.s4 ? packed_int4_bytes(weight) : 0}) {
    fill_uniform(input, seed, shape.s16 ? -32767 : -128, shape.s16 ? 32767 : 127);
    fill_uniform(weight, seed + 1, shape.s4 ? -8 : -127, shape.s4 ? 7 : 127);
    if (shape.s4) {
      pack_int4(weight, packed);
    }
    fill_uniform(bias, seed + 2, shape.s16 ? -1000000 : -5000, shape.s16 ? 1000000 : 5000);
    for (int32_t o = 0; o < c.out_c; ++o) {
      const double s = scale * (1.0 + 3.0 * ((o * 5) % c.out_c) / c.out_c);
      const Params p = params(0, s);
      multipliers.data<int32_t>()[o] = static_cast<int32_t>(p.multiplier);
      shifts.data<int32_t>()[o] = static_cast<int32_t>(p.shift);
    }
  }

  int32_t weight_at(int32_t o, int32_t i, int32_t j, int32_t ci) const {
    const int8_t* wd = weight.data<int8_t>();
    const int32_t group_in = c.in_c / c.groups;
    return c.depthwise ? wd[(i * c.kernel_w + j) * c.out_c + o]
                       : wd[((o * c.kernel_h + i) * c.kernel_w + j) * group_in + ci % group_in];
  }

  int32_t input_at(int64_t i) const {
    return c.s16 ? input.data<int16_t>()[i] : input.data<int8_t>()[i];
  }

  // The expected NHWC output into `want` ([N, OH, OW, C_out] of the activations' type).
  void reference(TestTensor& want) const {
    const int32_t oh = c.out_h(), ow = c.out_w(), mult = c.out_c / c.in_c;
    for (int32_t b = 0; b < c.n; ++b) {
      for (int32_t y = 0; y < oh; ++y) {
        for (int32_t x = 0; x < ow; ++x) {
          for (int32_t o = 0; o < c.out_c; ++o) {
            int64_t acc = c.s16 ? bias.data<int64_t>()[o] : bias.data<int32_t>()[o];
            const int32_t group_in = c.in_c / c.groups;
            const int32_t first = c.depthwise ? o / mult : o / (c.out_c / c.groups) * group_in;
            const int32_t last = c.depthwise ? first + 1 : first + group_in;
            for (int32_t i = 0; i < c.kernel_h; ++i) {
              const int32_t iy = y * c.stride_h - c.pad_h + i * c.dil_h;
              for (int32_t j = 0; j < c.kernel_w; ++j) {
                const int32_t ix = x * c.stride_w - c.pad_w + j * c.dil_w;
                if (iy < 0 || iy >= c.h || ix < 0 || ix >= c.w) continue;
                for (int32_t ci = first; ci < last; ++ci) {
                  const int32_t v = input_at(((b * c.h + iy) * c.w + ix) * c.in_c + ci);
                  acc += int64_t{v - c.input_zp} * weight_at(o, i, j, ci);
                }
              }
            }
            const Params p = {c.output_zp, multipliers.data<int32_t>()[o], shifts.data<int32_t>()[o]};
            int64_t q = (c.s16 ? rescale_s16(acc, p) : rescale(acc, p)) + p.zero_point;
            q = q < c.act_min ? c.act_min : (q > c.act_max ? c.act_max : q);
            const int64_t at = ((b * oh + y) * ow + x) * c.out_c + o;
            if (c.s16) {
              want.data<int16_t>()[at] = static_cast<int16_t>(q);
            } else {
              want.data<int8_t>()[at] = static_cast<int8_t>(q);
            }
          }
        }
      }
    }
  }
};

}  // namespace testing
}  // namespace kernels
}  // namespace etarm
