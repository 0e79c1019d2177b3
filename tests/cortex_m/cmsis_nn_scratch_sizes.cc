// Prints what the host-built CMSIS-NN size functions answer for each code path, for
// tests/cortex_m/test_scratch_sizes.py to compare with python/etarm/cortex_m/scratch_sizes.py. Each stdin line:
//   conv|depthwise|conv_s4|depthwise_s4|avgpool s16(0|1) N H W C_in C_out KH KW stride_h stride_w pad_h pad_w dil_h dil_w
// (the _s4 kinds: int4 weights, whose s16 field is ignored)
// (an average pool reads W as its output width and C_in as its channels)
// (kind transpose_conv: int8 only, dil_h dil_w read as its output_padding; it answers the column buffer plus the
// int32 output image, the size arm_nnfunctions.h gives for arm_transpose_conv_s8's output_ctx)
// gives one line "MVE DSP SCALAR": the _mve and _dsp functions, and the plain function of this (plain C) build.
#include <cstdio>
#include <cstring>

#include "arm_nnfunctions.h"

int main() {
  char kind[16];
  int s16, n, h, w, c_in, c_out, kh, kw, sh, sw, ph, pw, dh, dw;
  while (std::scanf(
             "%15s %d %d %d %d %d %d %d %d %d %d %d %d %d %d", kind, &s16, &n, &h, &w, &c_in, &c_out, &kh, &kw, &sh,
             &sw, &ph, &pw, &dh, &dw) == 15) {
    const cmsis_nn_dims input = {n, h, w, c_in};
    const cmsis_nn_dims output = {n, 1, 1, c_out};  // the size functions read only its channels
    if (std::strcmp(kind, "conv") == 0) {
      const cmsis_nn_conv_params params = {0, 0, {sw, sh}, {pw, ph}, {dw, dh}, {-128, 127}};
      const cmsis_nn_dims filter = {c_out, kh, kw, c_in};
      if (s16) {
        std::printf(
            "%d %d %d\n", arm_convolve_wrapper_s16_get_buffer_size_mve(&params, &input, &filter, &output),
            arm_convolve_wrapper_s16_get_buffer_size_dsp(&params, &input, &filter, &output),
            arm_convolve_wrapper_s16_get_buffer_size(&params, &input, &filter, &output));
      } else {
        std::printf(
            "%d %d %d\n", arm_convolve_wrapper_s8_get_buffer_size_mve(&params, &input, &filter, &output),
            arm_convolve_wrapper_s8_get_buffer_size_dsp(&params, &input, &filter, &output),
            arm_convolve_wrapper_s8_get_buffer_size(&params, &input, &filter, &output));
      }
    } else if (std::strcmp(kind, "depthwise") == 0) {
      const cmsis_nn_dw_conv_params params = {0, 0, c_out / c_in, {sw, sh}, {pw, ph}, {dw, dh}, {-128, 127}};
      const cmsis_nn_dims filter = {1, kh, kw, c_out};
      if (s16) {
        std::printf(
            "%d %d %d\n", arm_depthwise_conv_wrapper_s16_get_buffer_size_mve(&params, &input, &filter, &output),
            arm_depthwise_conv_wrapper_s16_get_buffer_size_dsp(&params, &input, &filter, &output),
            arm_depthwise_conv_wrapper_s16_get_buffer_size(&params, &input, &filter, &output));
      } else {
        std::printf(
            "%d %d %d\n", arm_depthwise_conv_wrapper_s8_get_buffer_size_mve(&params, &input, &filter, &output),
            arm_depthwise_conv_wrapper_s8_get_buffer_size_dsp(&params, &input, &filter, &output),
            arm_depthwise_conv_wrapper_s8_get_buffer_size(&params, &input, &filter, &output));
      }
    } else if (std::strcmp(kind, "conv_s4") == 0) {
      const cmsis_nn_conv_params params = {0, 0, {sw, sh}, {pw, ph}, {dw, dh}, {-128, 127}};
      const cmsis_nn_dims filter = {c_out, kh, kw, c_in};
      std::printf(
          "%d %d %d\n", arm_convolve_wrapper_s4_get_buffer_size_mve(&params, &input, &filter, &output),
          arm_convolve_wrapper_s4_get_buffer_size_dsp(&params, &input, &filter, &output),
          arm_convolve_wrapper_s4_get_buffer_size(&params, &input, &filter, &output));
    } else if (std::strcmp(kind, "depthwise_s4") == 0) {
      const cmsis_nn_dw_conv_params params = {0, 0, c_out / c_in, {sw, sh}, {pw, ph}, {dw, dh}, {-128, 127}};
      const cmsis_nn_dims filter = {1, kh, kw, c_out};
      std::printf(
          "%d %d %d\n", arm_depthwise_conv_wrapper_s4_get_buffer_size_mve(&params, &input, &filter, &output),
          arm_depthwise_conv_wrapper_s4_get_buffer_size_dsp(&params, &input, &filter, &output),
          arm_depthwise_conv_wrapper_s4_get_buffer_size(&params, &input, &filter, &output));
    } else if (std::strcmp(kind, "transpose_conv") == 0) {
      const int out_h = (h - 1) * sh - 2 * ph + kh + dh, out_w = (w - 1) * sw - 2 * pw + kw + dw;
      const cmsis_nn_dims filter = {c_out, kh, kw, c_in};
      const cmsis_nn_dims transposed_output = {n, out_h, out_w, c_out};
      const int image = 4 * out_h * out_w * c_out;
      std::printf(
          "%d %d %d\n", arm_transpose_conv_s8_get_buffer_size_mve(&input, &filter, &transposed_output) + image,
          arm_transpose_conv_s8_get_buffer_size_dsp(&input, &filter, &transposed_output) + image,
          arm_transpose_conv_s8_get_buffer_size(&input, &filter, &transposed_output) + image);
    } else if (std::strcmp(kind, "avgpool") == 0) {
      if (s16) {
        std::printf(
            "%d %d %d\n", arm_avgpool_s16_get_buffer_size_mve(w, c_in), arm_avgpool_s16_get_buffer_size_dsp(w, c_in),
            arm_avgpool_s16_get_buffer_size(w, c_in));
      } else {
        std::printf(
            "%d %d %d\n", arm_avgpool_s8_get_buffer_size_mve(w, c_in), arm_avgpool_s8_get_buffer_size_dsp(w, c_in),
            arm_avgpool_s8_get_buffer_size(w, c_in));
      }
    } else {
      std::fprintf(stderr, "unknown kind %s\n", kind);
      return 1;
    }
  }
  return 0;
}
