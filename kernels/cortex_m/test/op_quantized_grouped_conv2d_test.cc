// cortex_m::quantized_grouped_conv2d.out against a plain integer reference (conv2d_reference.h with groups): each
// output channel convolved with its group's input channels only (OHWI weights [C_out, KH, KW, C_in / groups]), a
// per-channel RESCALE with single rounding, the output zero point and the fused activation's CLAMP. Bit-exact on every
// CMSIS-NN code path, through the kernels arm_convolve_wrapper_s8 picks per group (arm_convolve_s8, the 1x1 ones).
// int16 activations (a16w8) through arm_convolve_wrapper_s16 per group (DSP: arm_convolve_fast_s16 below 512 taps).
#include <cmath>
#include <cstdint>

#include "kernels/cortex_m/test/conv2d_reference.h"

namespace {

using namespace etarm::kernels::testing;

constexpr const char* kOp = "cortex_m::quantized_grouped_conv2d.out";

Error call(Conv2dData& d, TestTensor& input, int64_t groups, TestTensor& out) {
  const Conv2dCase& c = d.c;
  return KernelCall(kOp)
      .tensor(input).integer(c.input_zp).tensor(d.weight).tensor(d.bias).tensor(d.multipliers).tensor(d.shifts)
      .ints({c.stride_h, c.stride_w}).ints({c.pad_h, c.pad_w}).ints({c.dil_h, c.dil_w}).integer(groups)
      .integer(c.output_zp).integer(c.act_min).integer(c.act_max).integer(c.scratch_bytes()).out(out).run();
}

void check(const Conv2dCase& c, uint32_t seed) {
  const double scale = 0.006 / std::sqrt(static_cast<double>(c.kernel_h * c.kernel_w * c.in_c / c.groups));
  Conv2dData d(c, seed, scale);
  TestTensor out(c.activations(), {c.n, c.out_h(), c.out_w(), c.out_c});
  TestTensor want(c.activations(), {c.n, c.out_h(), c.out_w(), c.out_c});
  ASSERT_EQ(call(d, d.input, c.groups, out), Error::Ok);
  d.reference(want);
  EXPECT_TENSOR_EQ(out, want);
}

TEST(QuantizedGroupedConv2d, TwoGroupsStridedAndPadded) {
  Conv2dCase c{1, 16, 16, 8, 3, 3, 8};  // runtime/core/test/models/small_cnn.py's conv2
  c.groups = 2;
  c.stride_h = c.stride_w = 2;
  c.pad_h = c.pad_w = 1;
  c.input_zp = -20;
  c.output_zp = 7;
  check(c, 11);
}

TEST(QuantizedGroupedConv2d, PointwiseGroups) {
  Conv2dCase fast{1, 5, 6, 16, 1, 1, 8};  // arm_convolve_1x1_s8_fast per group
  fast.groups = 4;
  fast.input_zp = 9;
  check(fast, 12);
  Conv2dCase strided{2, 7, 7, 6, 1, 1, 9};  // arm_convolve_1x1_s8 per group
  strided.groups = 3;
  strided.stride_h = strided.stride_w = 2;
  strided.output_zp = -90;
  check(strided, 13);
}

TEST(QuantizedGroupedConv2d, StridesDilationAndBatches) {
  Conv2dCase c{2, 9, 8, 6, 3, 2, 12};
  c.groups = 3;
  c.stride_h = 2;
  c.pad_h = 2;
  c.pad_w = 1;
  c.dil_h = 2;
  c.input_zp = 35;
  c.output_zp = -4;
  check(c, 14);
}

TEST(QuantizedGroupedConv2d, FusedActivationClamps) {
  Conv2dCase c{1, 6, 6, 4, 3, 3, 6};
  c.groups = 2;
  c.output_zp = -12;
  c.act_min = -12;  // relu
  c.act_max = 40;
  check(c, 15);
}

TEST(QuantizedGroupedConv2d, RejectsBadArguments) {
  Conv2dCase c{1, 5, 5, 4, 3, 3, 6};
  c.groups = 2;
  Conv2dData d(c, 16, 0.001);
  TestTensor out(ScalarType::Char, {1, 3, 3, 6});
  EXPECT_EQ(call(d, d.input, 2, out), Error::Ok);
  EXPECT_EQ(call(d, d.input, 0, out), Error::InvalidArgument);
  EXPECT_EQ(call(d, d.input, 4, out), Error::InvalidArgument);  // does not divide the 6 output channels
  EXPECT_EQ(call(d, d.input, 1, out), Error::InvalidArgument);  // the weights hold 2 input channels, not 4
  TestTensor six_channels(ScalarType::Char, {1, 5, 5, 6});  // 3 per group, the weights want 2
  EXPECT_EQ(call(d, six_channels, 2, out), Error::InvalidArgument);
  TestTensor floats(ScalarType::Float, {1, 5, 5, 4});
  EXPECT_EQ(call(d, floats, 2, out), Error::InvalidArgument);
  d.shifts.data<int32_t>()[4] = 1;  // a scale of 1 or more
  EXPECT_EQ(call(d, d.input, 2, out), Error::InvalidArgument);
}

TEST(QuantizedGroupedConv2dS16, GroupsStridedDilatedPointwiseAndClamped) {
  Conv2dCase c{1, 16, 16, 8, 3, 3, 8};
  c.groups = 2;
  c.stride_h = c.stride_w = 2;
  c.pad_h = c.pad_w = 1;
  check(c.int16_activations(), 21);
  Conv2dCase dilated{2, 9, 8, 6, 3, 2, 12};
  dilated.groups = 3;
  dilated.stride_h = 2;
  dilated.pad_h = 2;
  dilated.pad_w = 1;
  dilated.dil_h = 2;  // arm_convolve_s16 on every path
  check(dilated.int16_activations(), 22);
  Conv2dCase wide{1, 4, 4, 128, 3, 3, 4};  // 576 taps per group: DSP's arm_convolve_s16 instead of the fast kernel
  wide.groups = 2;
  wide.pad_h = wide.pad_w = 1;
  check(wide.int16_activations(), 23);
  Conv2dCase clamped{1, 5, 6, 16, 1, 1, 8};
  clamped.groups = 4;
  clamped.int16_activations();
  clamped.act_min = -1000;
  clamped.act_max = 3000;
  check(clamped, 24);
}

TEST(QuantizedGroupedConv2dS16, RejectsOffsetsAndMixedTypes) {
  Conv2dCase c{1, 5, 5, 4, 3, 3, 6};
  c.groups = 2;
  Conv2dData d(c.int16_activations(), 25, 0.001);
  TestTensor out(ScalarType::Short, {1, 3, 3, 6}), narrow_out(ScalarType::Char, {1, 3, 3, 6});
  EXPECT_EQ(call(d, d.input, 2, out), Error::Ok);
  EXPECT_EQ(call(d, d.input, 2, narrow_out), Error::InvalidArgument);
  TestTensor int8_input(ScalarType::Char, {1, 5, 5, 4});
  EXPECT_EQ(call(d, int8_input, 2, out), Error::InvalidArgument);
  d.c.output_zp = 3;  // int16 is symmetric
  EXPECT_EQ(call(d, d.input, 2, out), Error::InvalidArgument);
  d.c.output_zp = 0;
  d.c.act_min = -32768;  // beyond the symmetric range
  EXPECT_EQ(call(d, d.input, 2, out), Error::InvalidArgument);
}

}  // namespace
