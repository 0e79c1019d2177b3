// cortex_m::quantized_avg_pool2d.out against a plain reference: the window's taps inside the input (padding not
// counted) summed, divided by their count rounding half away from zero, then the clamp; NHWC, no rescale. On every
// CMSIS-NN code path (arm_avgpool_s8's MVE, DSP with its per-channel scratch buffer, and plain C loops).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "arm_nnfunctions.h"
#include "kernels/testing/harness.h"

namespace {

using namespace etarm::kernels::testing;

constexpr const char* kOp = "cortex_m::quantized_avg_pool2d.out";

struct Pool {
  int32_t kernel_h, kernel_w, stride_h, stride_w, pad_h = 0, pad_w = 0, act_min = -128, act_max = 127;
};

// The scratch_bytes argument: this build's size function (what the compiler records for the image's code path).
int32_t scratch_bytes(TestTensor& input) {
  const int32_t channels = input.sizes()[input.sizes().size() - 1];
  return input.dtype() == ScalarType::Short ? arm_avgpool_s16_get_buffer_size(1, channels)
                                            : arm_avgpool_s8_get_buffer_size(1, channels);
}

Error call(TestTensor& input, const Pool& p, TestTensor& out) {
  return KernelCall(kOp)
      .tensor(input).ints({p.kernel_h, p.kernel_w}).ints({p.stride_h, p.stride_w}).ints({p.pad_h, p.pad_w})
      .integer(p.act_min).integer(p.act_max).integer(scratch_bytes(input)).out(out).run();
}

void check_values(TestTensor& input, const Pool& p) {
  const int32_t n = input.sizes()[0], h = input.sizes()[1], w = input.sizes()[2], c = input.sizes()[3];
  const int32_t oh = (h + 2 * p.pad_h - p.kernel_h) / p.stride_h + 1;
  const int32_t ow = (w + 2 * p.pad_w - p.kernel_w) / p.stride_w + 1;
  TestTensor out(input.dtype(), {n, oh, ow, c}), want(input.dtype(), {n, oh, ow, c});
  ASSERT_EQ(call(input, p, out), Error::Ok);
  compute(want, [&](const Index& o) {
    int32_t sum = 0, count = 0;
    for (int32_t i = 0; i < p.kernel_h; ++i) {
      for (int32_t j = 0; j < p.kernel_w; ++j) {
        Index tap = o;
        tap.at[1] = o[1] * p.stride_h - p.pad_h + i;
        tap.at[2] = o[2] * p.stride_w - p.pad_w + j;
        if (tap[1] >= 0 && tap[1] < h && tap[2] >= 0 && tap[2] < w) {
          sum += static_cast<int32_t>(value_at(input, tap));
          ++count;
        }
      }
    }
    const int32_t average = (sum > 0 ? sum + count / 2 : sum - count / 2) / count;
    return static_cast<double>(std::min(std::max(average, p.act_min), p.act_max));
  });
  EXPECT_TENSOR_EQ(out, want);
}

void check(const std::vector<int32_t>& shape, const Pool& p, uint32_t seed, ScalarType type = ScalarType::Char) {
  TestTensor input(type, shape);
  const bool s16 = type == ScalarType::Short;
  fill_uniform(input, seed, s16 ? -32767 : -128, s16 ? 32767 : 127);
  check_values(input, p);
}

TEST(QuantizedAvgPool2d, TwoByTwo) {
  check({1, 8, 8, 16}, {2, 2, 2, 2}, 1);
}

TEST(QuantizedAvgPool2d, PaddedOverlappingWindowsAndBatches) {
  Pool p{3, 3, 2, 2};
  p.pad_h = p.pad_w = 1;
  check({2, 7, 9, 5}, p, 2);  // corner windows average 4 taps, edges 6, the rest 9
  check({1, 5, 6, 20}, {3, 2, 1, 2}, 3);  // 20 channels: MVE's 16-lane loop and its tail
}

TEST(QuantizedAvgPool2d, RoundsHalfAwayFromZero) {
  TestTensor input(ScalarType::Char, {1, 1, 2, 4});
  input.set<int8_t>({1, -1, 3, -3, 2, -2, 2, -2});  // pairs summing to 3, -3, 5, -5: halves
  TestTensor out(ScalarType::Char, {1, 1, 1, 4}), want(ScalarType::Char, {1, 1, 1, 4});
  ASSERT_EQ(call(input, {1, 2, 1, 2}, out), Error::Ok);
  want.set<int8_t>({2, -2, 3, -3});
  EXPECT_TENSOR_EQ(out, want);
  check_values(input, {1, 2, 1, 2});
}

TEST(QuantizedAvgPool2d, FusedActivationClamps) {
  Pool p{2, 2, 2, 2};
  p.act_min = -5;
  p.act_max = 5;
  check({1, 6, 6, 8}, p, 4);
}

TEST(QuantizedAvgPool2d, RejectsBadArguments) {
  TestTensor input(ScalarType::Char, {1, 4, 4, 2}), out(ScalarType::Char, {1, 2, 2, 2});
  EXPECT_EQ(call(input, {2, 2, 2, 2}, out), Error::Ok);
  Pool wide_pad{2, 2, 2, 2};
  wide_pad.pad_w = 2;
  EXPECT_EQ(call(input, wide_pad, out), Error::InvalidArgument);
  EXPECT_EQ(call(input, {2, 5, 1, 1}, out), Error::InvalidArgument);
  TestTensor floats(ScalarType::Float, {1, 4, 4, 2});
  EXPECT_EQ(call(floats, {2, 2, 2, 2}, out), Error::InvalidArgument);
}

// int16 activations (a16w8): arm_avgpool_s16, the same rounding.
TEST(QuantizedAvgPool2dS16, PaddedBatchesTailsRoundingAndClamps) {
  Pool p{3, 3, 2, 2};
  p.pad_h = p.pad_w = 1;
  p.act_min = -32767;
  p.act_max = 32767;
  check({2, 7, 9, 5}, p, 11, ScalarType::Short);
  check({1, 5, 6, 20}, {3, 2, 1, 2, 0, 0, -32767, 32767}, 12, ScalarType::Short);  // 20 channels: 8-lane tails
  check({1, 6, 6, 8}, {2, 2, 2, 2, 0, 0, -500, 500}, 13, ScalarType::Short);
  TestTensor input(ScalarType::Short, {1, 1, 2, 4});
  input.set<int16_t>({32767, -32767, 3, -3, 32766, -32766, 2, -2});  // halves round away from zero
  TestTensor out(ScalarType::Short, {1, 1, 1, 4}), want(ScalarType::Short, {1, 1, 1, 4});
  ASSERT_EQ(call(input, {1, 2, 1, 2, 0, 0, -32767, 32767}, out), Error::Ok);
  want.set<int16_t>({32767, -32767, 3, -3});
  EXPECT_TENSOR_EQ(out, want);
  TestTensor narrow(ScalarType::Char, {1, 1, 1, 4});
  EXPECT_EQ(call(input, {1, 2, 1, 2, 0, 0, -32767, 32767}, narrow), Error::InvalidArgument);
}

}  // namespace
