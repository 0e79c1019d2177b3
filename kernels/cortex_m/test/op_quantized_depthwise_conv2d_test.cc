// cortex_m::quantized_depthwise_conv2d.out against a plain integer reference (conv2d_reference.h): TOSA's
// DEPTHWISE_CONV2D in NHWC with [1, KH, KW, C_out] weights, a per-channel RESCALE with single rounding, the output
// zero point and the fused activation's CLAMP. Bit-exact on every CMSIS-NN code path, through each kernel
// arm_depthwise_conv_wrapper_s8 picks: the 3x3 one (DSP builds; padding <= 1), arm_depthwise_conv_s8_opt (multiplier
// 1, one image, with its scratch buffer), arm_depthwise_conv_s8 (multipliers > 1 (4: its own loop), dilation,
// batches). int4 weights (a8w4, cortex_m::quantized_depthwise_conv2d_s4) through arm_depthwise_conv_wrapper_s4
// (arm_depthwise_conv_s4_opt with its scratch on every path, or arm_depthwise_conv_s4) against the same reference
// with the unpacked weights: odd and even channel counts, odd windows (the general kernel: even counts only).
#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/cortex_m/test/conv2d_reference.h"

namespace {

using namespace etarm::kernels::testing;

constexpr const char* kOp = "cortex_m::quantized_depthwise_conv2d.out";

Error call(Conv2dData& d, TestTensor& input, TestTensor& out, int64_t multiplier) {
  const Conv2dCase& c = d.c;
  return KernelCall(kOp)
      .tensor(input).integer(c.input_zp).tensor(d.weight).tensor(d.bias).tensor(d.multipliers).tensor(d.shifts)
      .ints({c.stride_h, c.stride_w}).ints({c.pad_h, c.pad_w}).ints({c.dil_h, c.dil_w}).integer(multiplier)
      .integer(c.output_zp).integer(c.act_min).integer(c.act_max).integer(c.scratch_bytes()).out(out).run();
}

Conv2dCase depthwise(int32_t n, int32_t h, int32_t w, int32_t channels, int32_t kernel, int32_t multiplier) {
  Conv2dCase c{n, h, w, channels, kernel, kernel, channels * multiplier};
  c.depthwise = true;
  return c;
}

void check(const Conv2dCase& c, uint32_t seed) {
  Conv2dData d(c, seed, 0.006 / c.kernel_h);
  TestTensor out(c.activations(), {c.n, c.out_h(), c.out_w(), c.out_c});
  TestTensor want(c.activations(), {c.n, c.out_h(), c.out_w(), c.out_c});
  ASSERT_EQ(call(d, d.input, out, c.out_c / c.in_c), Error::Ok);
  d.reference(want);
  EXPECT_TENSOR_EQ(out, want);
}

constexpr const char* kOpS4 = "cortex_m::quantized_depthwise_conv2d_s4.out";

Error call_s4(Conv2dData& d, TestTensor& input, TestTensor& packed, const std::vector<int64_t>& shape, TestTensor& out,
              int64_t scratch_bytes) {
  const Conv2dCase& c = d.c;
  return KernelCall(kOpS4)
      .tensor(input).integer(c.input_zp).tensor(packed).tensor(d.bias).tensor(d.multipliers).tensor(d.shifts)
      .ints({c.stride_h, c.stride_w}).ints({c.pad_h, c.pad_w}).ints({c.dil_h, c.dil_w}).integer(c.out_c / c.in_c)
      .integer(c.output_zp).integer(c.act_min).integer(c.act_max).ints(shape).integer(scratch_bytes).out(out).run();
}

std::vector<int64_t> weight_shape(const Conv2dCase& c) {
  return {1, c.kernel_h, c.kernel_w, c.out_c};
}

void check_s4(Conv2dCase c, uint32_t seed) {
  c.int4_weights();
  Conv2dData d(c, seed, 0.1 / c.kernel_h);  // int4 products: scales 16 times the int8 cases'
  TestTensor out(ScalarType::Char, {c.n, c.out_h(), c.out_w(), c.out_c});
  TestTensor want(ScalarType::Char, {c.n, c.out_h(), c.out_w(), c.out_c});
  ASSERT_EQ(call_s4(d, d.input, d.packed, weight_shape(c), out, c.scratch_bytes()), Error::Ok);
  d.reference(want);
  EXPECT_TENSOR_EQ(out, want);
}

TEST(QuantizedDepthwiseConv2dS4, OptimisedOddAndEvenChannels) {
  Conv2dCase even = depthwise(1, 9, 7, 8, 3, 1);
  even.pad_h = even.pad_w = 1;
  even.input_zp = -20;
  even.output_zp = 7;
  check_s4(even, 31);
  Conv2dCase odd = depthwise(1, 6, 6, 5, 3, 1);  // 5 channels: each tap's channels share a byte with the next tap's
  odd.stride_h = odd.stride_w = 2;
  odd.pad_h = odd.pad_w = 1;
  check_s4(odd, 32);
  Conv2dCase seven = depthwise(1, 7, 8, 7, 2, 1);  // an even window over an odd channel count
  seven.input_zp = 11;
  check_s4(seven, 33);
  Conv2dCase wide = depthwise(1, 10, 10, 12, 5, 1);
  wide.pad_h = wide.pad_w = 2;
  wide.input_zp = 33;
  check_s4(wide, 34);
}

TEST(QuantizedDepthwiseConv2dS4, GeneralMultipliersDilationBatches) {
  Conv2dCase two = depthwise(1, 8, 8, 4, 3, 2);
  two.stride_h = two.stride_w = 2;
  two.pad_h = two.pad_w = 1;
  check_s4(two, 35);
  Conv2dCase dilated = depthwise(2, 9, 9, 6, 3, 1);
  dilated.dil_h = dilated.dil_w = 2;
  dilated.pad_h = 2;
  dilated.input_zp = -128;
  check_s4(dilated, 36);
  Conv2dCase clamped = depthwise(1, 6, 6, 8, 3, 1);
  clamped.output_zp = -10;
  clamped.act_min = -10;
  clamped.act_max = 40;
  check_s4(clamped, 37);
}

TEST(QuantizedDepthwiseConv2dS4, RejectsBadArguments) {
  Conv2dCase c = depthwise(1, 5, 5, 5, 3, 1);  // 45 weights: 23 bytes
  c.int4_weights();
  Conv2dData d(c, 38, 0.03);
  TestTensor out(ScalarType::Char, {1, 3, 3, 5});
  const std::vector<int64_t> shape = weight_shape(c);
  ASSERT_GT(c.scratch_bytes(), 0);  // the optimized kernel's im2col, on every path
  ASSERT_EQ(call_s4(d, d.input, d.packed, shape, out, c.scratch_bytes()), Error::Ok);
  TestTensor short_packed(ScalarType::Char, {22});
  EXPECT_EQ(call_s4(d, d.input, short_packed, shape, out, c.scratch_bytes()), Error::InvalidArgument);
  EXPECT_EQ(call_s4(d, d.input, d.weight, shape, out, c.scratch_bytes()), Error::InvalidArgument);  // unpacked
  EXPECT_EQ(call_s4(d, d.input, d.packed, {2, 3, 3, 5}, out, c.scratch_bytes()), Error::InvalidArgument);
  EXPECT_EQ(call_s4(d, d.input, d.packed, {1, 3, 3}, out, c.scratch_bytes()), Error::InvalidArgument);
  TestTensor int16_input(ScalarType::Short, {1, 5, 5, 5}), int16_out(ScalarType::Short, {1, 3, 3, 5});
  EXPECT_EQ(call_s4(d, int16_input, d.packed, shape, int16_out, c.scratch_bytes()), Error::InvalidArgument);
  EXPECT_EQ(call_s4(d, d.input, d.packed, shape, out, -1), Error::InvalidArgument);
#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
  EXPECT_EQ(call_s4(d, d.input, d.packed, shape, out, c.scratch_bytes() - 1), Error::InvalidArgument);
#endif
}

// arm_depthwise_conv_s4 (the general kernel) reads the wrong nibbles over an odd channel count (its rows are
// (C_in / 2) * multiplier bytes; its nibble flips per visited tap, so border taps shift it): the kernel refuses
// those calls, and the compiler keeps such convolutions on int8 weights.
TEST(QuantizedDepthwiseConv2dS4, RefusesTheGeneralKernelOverOddChannels) {
  Conv2dCase multiplier = depthwise(1, 8, 8, 3, 3, 2);
  Conv2dCase dilated = depthwise(1, 9, 9, 5, 3, 1);
  dilated.dil_h = 2;
  Conv2dCase batches = depthwise(2, 6, 6, 5, 3, 1);
  for (Conv2dCase c : {multiplier, dilated, batches}) {
    c.int4_weights();
    Conv2dData d(c, 39, 0.03);
    TestTensor out(ScalarType::Char, {c.n, c.out_h(), c.out_w(), c.out_c});
    EXPECT_EQ(call_s4(d, d.input, d.packed, weight_shape(c), out, c.scratch_bytes()), Error::InvalidArgument);
  }
}

TEST(QuantizedDepthwiseConv2d, ThreeByThreePaddedOne) {
  Conv2dCase c = depthwise(1, 9, 7, 8, 3, 1);
  c.pad_h = c.pad_w = 1;
  c.input_zp = -20;
  c.output_zp = 7;
  check(c, 1);
  Conv2dCase odd = depthwise(1, 6, 6, 5, 3, 1);  // channels not a multiple of 4, stride 2
  odd.stride_h = odd.stride_w = 2;
  odd.pad_h = odd.pad_w = 1;
  check(odd, 2);
}

TEST(QuantizedDepthwiseConv2d, FiveByFiveOptimised) {
  Conv2dCase c = depthwise(1, 10, 10, 12, 5, 1);
  c.pad_h = c.pad_w = 2;
  c.input_zp = 33;
  check(c, 3);
}

TEST(QuantizedDepthwiseConv2d, ChannelMultipliers) {
  Conv2dCase two = depthwise(1, 8, 8, 3, 3, 2);
  two.stride_h = two.stride_w = 2;
  two.pad_h = two.pad_w = 1;
  check(two, 4);
  Conv2dCase four = depthwise(1, 5, 6, 2, 3, 4);
  four.output_zp = -50;
  check(four, 5);
}

TEST(QuantizedDepthwiseConv2d, DilationAndBatches) {
  Conv2dCase c = depthwise(2, 9, 9, 6, 3, 1);
  c.dil_h = c.dil_w = 2;
  c.pad_h = 2;
  c.input_zp = -128;
  check(c, 6);
}

TEST(QuantizedDepthwiseConv2d, FusedActivationClamps) {
  Conv2dCase c = depthwise(1, 6, 6, 8, 3, 1);
  c.pad_h = c.pad_w = 1;
  c.output_zp = -128;
  c.act_min = -128;
  c.act_max = -20;  // relu6-like upper bound
  check(c, 7);
}

TEST(QuantizedDepthwiseConv2d, RejectsBadArguments) {
  Conv2dCase c = depthwise(1, 5, 5, 4, 3, 2);
  Conv2dData d(c, 8, 0.002);
  TestTensor out(ScalarType::Char, {1, 3, 3, 8});
  EXPECT_EQ(call(d, d.input, out, 2), Error::Ok);
  EXPECT_EQ(call(d, d.input, out, 1), Error::InvalidArgument);  // 4 * 1 != 8 channels
  EXPECT_EQ(call(d, d.input, out, 0), Error::InvalidArgument);
  TestTensor five_channels(ScalarType::Char, {1, 5, 5, 5});
  EXPECT_EQ(call(d, five_channels, out, 2), Error::InvalidArgument);
  d.multipliers.data<int32_t>()[0] = 0;
  EXPECT_EQ(call(d, d.input, out, 2), Error::InvalidArgument);
}

// int16 activations (a16w8): arm_depthwise_conv_wrapper_s16 (DSP: the fast kernel for multiplier 1, no dilation).
TEST(QuantizedDepthwiseConv2dS16, PaddedMultipliersDilationAndClamps) {
  Conv2dCase c = depthwise(1, 9, 7, 8, 3, 1);
  c.pad_h = c.pad_w = 1;
  check(c.int16_activations(), 21);
  Conv2dCase odd = depthwise(1, 6, 6, 5, 3, 1);  // channels not a multiple of 4, stride 2
  odd.stride_h = odd.stride_w = 2;
  check(odd.int16_activations(), 22);
  Conv2dCase two = depthwise(2, 8, 8, 3, 3, 2);
  two.dil_w = 2;
  check(two.int16_activations(), 23);
  Conv2dCase clamped = depthwise(1, 6, 6, 8, 3, 1);
  clamped.int16_activations();
  clamped.act_min = 0;
  clamped.act_max = 2000;
  check(clamped, 24);
}

TEST(QuantizedDepthwiseConv2dS16, RejectsOffsetsAndMixedTypes) {
  Conv2dCase c = depthwise(1, 5, 5, 4, 3, 1);
  Conv2dData d(c.int16_activations(), 25, 0.001);
  TestTensor out(ScalarType::Short, {1, 3, 3, 4}), narrow_out(ScalarType::Char, {1, 3, 3, 4});
  EXPECT_EQ(call(d, d.input, out, 1), Error::Ok);
  EXPECT_EQ(call(d, d.input, narrow_out, 1), Error::InvalidArgument);
  d.c.output_zp = -2;  // int16 is symmetric
  EXPECT_EQ(call(d, d.input, out, 1), Error::InvalidArgument);
}

}  // namespace
