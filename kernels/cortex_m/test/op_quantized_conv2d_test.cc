// cortex_m::quantized_conv2d.out against a plain integer reference (conv2d_reference.h): TOSA's CONV2D in NHWC with
// OHWI weights, a per-channel RESCALE with single rounding, the output zero point and the fused activation's CLAMP.
// Bit-exact on every CMSIS-NN code path, through each kernel arm_convolve_wrapper_s8 picks: arm_convolve_s8 (3x3,
// strides, dilation, padding, batches), arm_convolve_1x1_s8_fast (1x1 stride 1), arm_convolve_1x1_s8 (1x1 stride 2)
// and arm_convolve_1_x_n_s8 (a one-row image), each with the scratch buffer its size function asks for. int16
// activations (a16w8) through arm_convolve_wrapper_s16 (DSP: arm_convolve_fast_s16 below 512 taps per output).
// int4 weights (a8w4, cortex_m::quantized_conv2d_s4) through arm_convolve_wrapper_s4, against the same reference with
// the unpacked weights: odd weight counts per filter and in all, every kernel the wrapper picks.
#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/cortex_m/test/conv2d_reference.h"

namespace {

using namespace etarm::kernels::testing;

constexpr const char* kOp = "cortex_m::quantized_conv2d.out";

Error call_with_scratch(Conv2dData& d, TestTensor& input, TestTensor& out, int64_t scratch_bytes) {
  const Conv2dCase& c = d.c;
  return KernelCall(kOp)
      .tensor(input).integer(c.input_zp).tensor(d.weight).tensor(d.bias).tensor(d.multipliers).tensor(d.shifts)
      .ints({c.stride_h, c.stride_w}).ints({c.pad_h, c.pad_w}).ints({c.dil_h, c.dil_w})
      .integer(c.output_zp).integer(c.act_min).integer(c.act_max).integer(scratch_bytes).out(out).run();
}

Error call(Conv2dData& d, TestTensor& input, TestTensor& out) {
  return call_with_scratch(d, input, out, d.c.scratch_bytes());
}

void check(const Conv2dCase& c, uint32_t seed) {
  // Per-channel scales for an output spread over the int8 range: |acc| grows with sqrt(taps).
  const double scale = 0.006 / std::sqrt(static_cast<double>(c.kernel_h * c.kernel_w * c.in_c));
  Conv2dData d(c, seed, scale);
  TestTensor out(c.activations(), {c.n, c.out_h(), c.out_w(), c.out_c});
  TestTensor want(c.activations(), {c.n, c.out_h(), c.out_w(), c.out_c});
  ASSERT_EQ(call(d, d.input, out), Error::Ok);
  d.reference(want);
  EXPECT_TENSOR_EQ(out, want);
}

constexpr const char* kOpS4 = "cortex_m::quantized_conv2d_s4.out";

Error call_s4(Conv2dData& d, TestTensor& input, TestTensor& packed, const std::vector<int64_t>& shape, TestTensor& out,
              int64_t scratch_bytes) {
  const Conv2dCase& c = d.c;
  return KernelCall(kOpS4)
      .tensor(input).integer(c.input_zp).tensor(packed).tensor(d.bias).tensor(d.multipliers).tensor(d.shifts)
      .ints({c.stride_h, c.stride_w}).ints({c.pad_h, c.pad_w}).ints({c.dil_h, c.dil_w})
      .integer(c.output_zp).integer(c.act_min).integer(c.act_max).ints(shape).integer(scratch_bytes).out(out).run();
}

std::vector<int64_t> weight_shape(const Conv2dCase& c) {
  const std::vector<int32_t> sizes = c.weight_sizes();
  return std::vector<int64_t>(sizes.begin(), sizes.end());
}

void check_s4(Conv2dCase c, uint32_t seed) {
  c.int4_weights();
  // int4 weights: each product is a 16th of an int8 one's, so the scales are 16 times larger.
  const double scale = 0.1 / std::sqrt(static_cast<double>(c.kernel_h * c.kernel_w * c.in_c));
  Conv2dData d(c, seed, scale);
  TestTensor out(ScalarType::Char, {c.n, c.out_h(), c.out_w(), c.out_c});
  TestTensor want(ScalarType::Char, {c.n, c.out_h(), c.out_w(), c.out_c});
  ASSERT_EQ(call_s4(d, d.input, d.packed, weight_shape(c), out, c.scratch_bytes()), Error::Ok);
  d.reference(want);
  EXPECT_TENSOR_EQ(out, want);
}

TEST(QuantizedConv2dS4, GeneralKernelOddCounts) {
  Conv2dCase c{1, 8, 8, 3, 3, 3, 7};  // 27 weights per filter, 189 in all: filters share bytes
  c.pad_h = c.pad_w = 1;
  c.input_zp = -17;
  c.output_zp = 5;
  check_s4(c, 21);
  Conv2dCase strided{2, 11, 9, 5, 3, 2, 8};
  strided.stride_h = 2;
  strided.stride_w = 3;
  strided.pad_h = 2;
  strided.pad_w = 1;
  strided.dil_h = 2;
  strided.input_zp = 40;
  strided.output_zp = -3;
  check_s4(strided, 22);
  Conv2dCase wide{1, 5, 6, 16, 3, 3, 12};  // even counts, the DSP path's four-at-a-time loops
  wide.pad_h = 1;
  check_s4(wide, 23);
}

TEST(QuantizedConv2dS4, PointwiseFastAndStrided) {
  Conv2dCase fast{1, 6, 5, 5, 1, 1, 9};  // arm_convolve_1x1_s4_fast, 5 values per filter
  fast.input_zp = 3;
  check_s4(fast, 24);
  Conv2dCase even{2, 3, 4, 16, 1, 1, 6};
  check_s4(even, 25);
  Conv2dCase strided{2, 7, 7, 7, 1, 1, 5};  // arm_convolve_1x1_s4
  strided.stride_h = strided.stride_w = 2;
  strided.output_zp = -100;
  check_s4(strided, 26);
}

TEST(QuantizedConv2dS4, FusedActivationClamps) {
  Conv2dCase c{1, 6, 6, 4, 3, 3, 5};
  c.output_zp = -10;
  c.act_min = -10;  // relu
  c.act_max = 30;
  check_s4(c, 27);
}

TEST(QuantizedConv2dS4, RejectsBadArguments) {
  Conv2dCase c{1, 5, 5, 3, 3, 3, 5};  // 135 weights: 68 bytes
  c.int4_weights();
  Conv2dData d(c, 28, 0.02);
  TestTensor out(ScalarType::Char, {1, 3, 3, 5});
  TestTensor want(ScalarType::Char, {1, 3, 3, 5});
  d.reference(want);
  const std::vector<int64_t> shape = weight_shape(c);
  ASSERT_EQ(call_s4(d, d.input, d.packed, shape, out, c.scratch_bytes()), Error::Ok);
  EXPECT_TENSOR_EQ(out, want);
  TestTensor short_packed(ScalarType::Char, {67});
  EXPECT_EQ(call_s4(d, d.input, short_packed, shape, out, c.scratch_bytes()), Error::InvalidArgument);
  TestTensor long_packed(ScalarType::Char, {69});
  EXPECT_EQ(call_s4(d, d.input, long_packed, shape, out, c.scratch_bytes()), Error::InvalidArgument);
  // The unpacked 4-D weight, a 3-D shape, a shape whose input channels differ from the input's, a negative dim.
  EXPECT_EQ(call_s4(d, d.input, d.weight, shape, out, c.scratch_bytes()), Error::InvalidArgument);
  EXPECT_EQ(call_s4(d, d.input, d.packed, {5, 3, 9}, out, c.scratch_bytes()), Error::InvalidArgument);
  EXPECT_EQ(call_s4(d, d.input, d.packed, {5, 3, 1, 9}, out, c.scratch_bytes()), Error::InvalidArgument);
  EXPECT_EQ(call_s4(d, d.input, d.packed, {-5, 3, 3, -3}, out, c.scratch_bytes()), Error::InvalidArgument);
  TestTensor int16_input(ScalarType::Short, {1, 5, 5, 3}), int16_out(ScalarType::Short, {1, 3, 3, 5});
  EXPECT_EQ(call_s4(d, int16_input, d.packed, shape, int16_out, c.scratch_bytes()), Error::InvalidArgument);
  EXPECT_EQ(call_s4(d, d.input, d.packed, shape, out, -1), Error::InvalidArgument);  // no record
#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
  EXPECT_EQ(call_s4(d, d.input, d.packed, shape, out, c.scratch_bytes() - 1), Error::InvalidArgument);
#endif
  // The s8 op refuses the packed weight.
  TestTensor s8_out(ScalarType::Char, {1, 3, 3, 5});
  EXPECT_EQ(KernelCall(kOp).tensor(d.input).integer(0).tensor(d.packed).tensor(d.bias).tensor(d.multipliers)
                .tensor(d.shifts).ints({1, 1}).ints({0, 0}).ints({1, 1}).integer(0).integer(-128).integer(127)
                .integer(c.scratch_bytes()).out(s8_out).run(),
            Error::InvalidArgument);
}

TEST(QuantizedConv2d, ThreeByThreePadded) {
  Conv2dCase c{1, 8, 8, 3, 3, 3, 8};
  c.pad_h = c.pad_w = 1;
  c.input_zp = -17;
  c.output_zp = 5;
  check(c, 1);
}

TEST(QuantizedConv2d, StridesDilationAndBatches) {
  Conv2dCase c{2, 11, 9, 5, 3, 2, 7};
  c.stride_h = 2;
  c.stride_w = 3;
  c.pad_h = 2;
  c.pad_w = 1;
  c.dil_h = 2;
  c.input_zp = 40;
  c.output_zp = -3;
  check(c, 2);
}

TEST(QuantizedConv2d, PointwiseFastAndStrided) {
  Conv2dCase fast{1, 6, 5, 16, 1, 1, 12};  // arm_convolve_1x1_s8_fast
  fast.input_zp = 3;
  check(fast, 3);
  Conv2dCase strided{2, 7, 7, 8, 1, 1, 4};  // arm_convolve_1x1_s8
  strided.stride_h = strided.stride_w = 2;
  strided.output_zp = -100;
  check(strided, 4);
}

TEST(QuantizedConv2d, OneRowImage) {
  Conv2dCase c{1, 1, 12, 8, 1, 3, 6};  // arm_convolve_1_x_n_s8: stride * C_in a multiple of 4
  c.pad_w = 1;
  c.input_zp = -128;
  check(c, 5);
}

TEST(QuantizedConv2d, FusedActivationClamps) {
  Conv2dCase c{1, 6, 6, 4, 3, 3, 5};
  c.output_zp = -10;
  c.act_min = -10;  // relu
  c.act_max = 30;
  check(c, 6);
}

TEST(QuantizedConv2d, RejectsBadArguments) {
  Conv2dCase c{1, 5, 5, 4, 3, 3, 6};
  Conv2dData d(c, 7, 0.001);
  TestTensor out(ScalarType::Char, {1, 3, 3, 6});
  TestTensor three_channels(ScalarType::Char, {1, 5, 5, 3});  // the weights want 4
  EXPECT_EQ(call(d, three_channels, out), Error::InvalidArgument);
  TestTensor floats(ScalarType::Float, {1, 5, 5, 4});
  EXPECT_EQ(call(d, floats, out), Error::InvalidArgument);
  TestTensor small(ScalarType::Char, {1, 2, 2, 4});  // smaller than the kernel
  EXPECT_EQ(call(d, small, out), Error::InvalidArgument);
  d.shifts.data<int32_t>()[2] = 1;  // a scale of 1 or more
  EXPECT_EQ(call(d, d.input, out), Error::InvalidArgument);
  d.shifts.data<int32_t>()[2] = -3;
  EXPECT_EQ(call(d, d.input, out), Error::Ok);
  EXPECT_EQ(KernelCall(kOp).tensor(d.input).integer(0).tensor(d.weight).tensor(d.bias).tensor(d.multipliers)
                .tensor(d.shifts).ints({0, 1}).ints({0, 0}).ints({1, 1}).integer(0).integer(-128).integer(127)
                .integer(d.c.scratch_bytes()).out(out).run(),
            Error::InvalidArgument);  // stride 0
  TestTensor short_bias(ScalarType::Int, {5});
  EXPECT_EQ(KernelCall(kOp).tensor(d.input).integer(0).tensor(d.weight).tensor(short_bias).tensor(d.multipliers)
                .tensor(d.shifts).ints({1, 1}).ints({0, 0}).ints({1, 1}).integer(0).integer(-128).integer(127)
                .integer(d.c.scratch_bytes()).out(out).run(),
            Error::InvalidArgument);
  EXPECT_EQ(KernelCall(kOp).tensor(d.input).integer(200).tensor(d.weight).tensor(d.bias).tensor(d.multipliers)
                .tensor(d.shifts).ints({1, 1}).ints({0, 0}).ints({1, 1}).integer(0).integer(-128).integer(127)
                .integer(d.c.scratch_bytes()).out(out).run(),
            Error::InvalidArgument);  // input zero point beyond int8
}

// The scratch size the program records for its code path against the call's: a Cortex-M image runs that path, so
// less is an Error; host builds model every path with plain C and take the larger (a program for MVE records 0 for
// a 1xN conv, whose plain C needs a buffer). No record (-1) is an Error everywhere.
TEST(QuantizedConv2d, ChecksTheRecordedScratchSize) {
  Conv2dCase c{1, 6, 6, 8, 3, 3, 4};  // arm_convolve_s8: a scratch buffer on every code path
  Conv2dData d(c, 8, 0.002);
  TestTensor out(ScalarType::Char, {1, 4, 4, 4});
  TestTensor want(ScalarType::Char, {1, 4, 4, 4});
  d.reference(want);
  ASSERT_GT(c.scratch_bytes(), 0);
  EXPECT_EQ(call_with_scratch(d, d.input, out, -1), Error::InvalidArgument);
#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
  EXPECT_EQ(call_with_scratch(d, d.input, out, c.scratch_bytes() - 1), Error::InvalidArgument);
#else
  ASSERT_EQ(call_with_scratch(d, d.input, out, 0), Error::Ok);
  EXPECT_TENSOR_EQ(out, want);
#endif
  ASSERT_EQ(call_with_scratch(d, d.input, out, c.scratch_bytes()), Error::Ok);
  EXPECT_TENSOR_EQ(out, want);
}

TEST(QuantizedConv2dS16, PaddedStridedDilatedAndWide) {
  Conv2dCase c{1, 8, 8, 3, 3, 3, 8};
  c.pad_h = c.pad_w = 1;
  check(c.int16_activations(), 11);
  Conv2dCase strided{2, 11, 9, 5, 3, 2, 7};
  strided.stride_h = 2;
  strided.stride_w = 3;
  strided.pad_h = 2;
  strided.dil_h = 2;  // dilation: arm_convolve_s16 on every path
  check(strided.int16_activations(), 12);
  Conv2dCase wide{1, 4, 4, 64, 3, 3, 5};  // 576 taps: DSP's arm_convolve_s16 instead of the fast kernel
  wide.pad_h = wide.pad_w = 1;
  check(wide.int16_activations(), 13);
  Conv2dCase clamped{1, 6, 5, 16, 1, 1, 12};
  clamped.int16_activations();
  clamped.act_min = -1000;
  clamped.act_max = 3000;
  check(clamped, 14);
}

TEST(QuantizedConv2dS16, RejectsOffsetsMixedTypesAndNarrowBiases) {
  Conv2dCase c{1, 5, 5, 4, 3, 3, 6};
  Conv2dData d(c.int16_activations(), 15, 0.001);
  TestTensor out(ScalarType::Short, {1, 3, 3, 6}), narrow_out(ScalarType::Char, {1, 3, 3, 6});
  EXPECT_EQ(call(d, d.input, out), Error::Ok);
  EXPECT_EQ(call(d, d.input, narrow_out), Error::InvalidArgument);
  d.c.input_zp = 1;  // int16 is symmetric
  EXPECT_EQ(call(d, d.input, out), Error::InvalidArgument);
  d.c.input_zp = 0;
  d.c.act_min = -32768;  // beyond the symmetric range
  EXPECT_EQ(call(d, d.input, out), Error::InvalidArgument);
  d.c.act_min = -32767;
  TestTensor int32_bias(ScalarType::Int, {6});
  EXPECT_EQ(KernelCall(kOp).tensor(d.input).integer(0).tensor(d.weight).tensor(int32_bias).tensor(d.multipliers)
                .tensor(d.shifts).ints({1, 1}).ints({0, 0}).ints({1, 1}).integer(0).integer(-32767).integer(32767)
                .integer(d.c.scratch_bytes()).out(out).run(),
            Error::InvalidArgument);
}

}  // namespace
