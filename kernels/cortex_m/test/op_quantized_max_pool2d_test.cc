// cortex_m::quantized_max_pool2d.out against a plain reference: the maximum over each window's taps inside the
// input (torch pads a max pool with -inf, so padding never wins), then the clamp; NHWC, no rescale. On every
// CMSIS-NN code path (arm_max_pool_s8's MVE, DSP and plain C loops; arm_max_pool_s16 for int16, a16w8).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/testing/harness.h"

namespace {

using namespace etarm::kernels::testing;

constexpr const char* kOp = "cortex_m::quantized_max_pool2d.out";

struct Pool {
  int32_t kernel_h, kernel_w, stride_h, stride_w, pad_h = 0, pad_w = 0, act_min = -128, act_max = 127;
};

Error call(TestTensor& input, const Pool& p, TestTensor& out) {
  return KernelCall(kOp)
      .tensor(input).ints({p.kernel_h, p.kernel_w}).ints({p.stride_h, p.stride_w}).ints({p.pad_h, p.pad_w})
      .integer(p.act_min).integer(p.act_max).out(out).run();
}

void check(const std::vector<int32_t>& shape, const Pool& p, uint32_t seed, ScalarType type = ScalarType::Char) {
  const int32_t n = shape[0], h = shape[1], w = shape[2], c = shape[3];
  const int32_t oh = (h + 2 * p.pad_h - p.kernel_h) / p.stride_h + 1;
  const int32_t ow = (w + 2 * p.pad_w - p.kernel_w) / p.stride_w + 1;
  TestTensor input(type, shape), out(type, {n, oh, ow, c}), want(type, {n, oh, ow, c});
  const bool s16 = type == ScalarType::Short;
  fill_uniform(input, seed, s16 ? -32767 : -128, s16 ? 32767 : 127);
  ASSERT_EQ(call(input, p, out), Error::Ok);
  compute(want, [&](const Index& o) {
    int32_t best = INT32_MIN;
    for (int32_t i = 0; i < p.kernel_h; ++i) {
      for (int32_t j = 0; j < p.kernel_w; ++j) {
        Index tap = o;
        tap.at[1] = o[1] * p.stride_h - p.pad_h + i;
        tap.at[2] = o[2] * p.stride_w - p.pad_w + j;
        if (tap[1] >= 0 && tap[1] < h && tap[2] >= 0 && tap[2] < w) {
          best = std::max(best, static_cast<int32_t>(value_at(input, tap)));
        }
      }
    }
    return static_cast<double>(std::min(std::max(best, p.act_min), p.act_max));
  });
  EXPECT_TENSOR_EQ(out, want);
}

TEST(QuantizedMaxPool2d, TwoByTwo) {
  check({1, 8, 8, 16}, {2, 2, 2, 2}, 1);
}

TEST(QuantizedMaxPool2d, PaddedOverlappingWindowsAndBatches) {
  Pool p{3, 3, 2, 2};
  p.pad_h = p.pad_w = 1;
  check({2, 7, 9, 5}, p, 2);  // 5 channels: the vector loops' tails
  check({1, 5, 6, 3}, {3, 2, 1, 2}, 3);
}

TEST(QuantizedMaxPool2d, FusedActivationClamps) {
  Pool p{2, 2, 2, 2};
  p.act_min = -10;
  p.act_max = 40;
  check({1, 6, 6, 8}, p, 4);
}

TEST(QuantizedMaxPool2d, RejectsBadArguments) {
  TestTensor input(ScalarType::Char, {1, 4, 4, 2}), out(ScalarType::Char, {1, 2, 2, 2});
  EXPECT_EQ(call(input, {2, 2, 2, 2}, out), Error::Ok);
  Pool wide_pad{2, 2, 2, 2};
  wide_pad.pad_h = 2;  // beyond half the kernel: a window of padding only
  EXPECT_EQ(call(input, wide_pad, out), Error::InvalidArgument);
  EXPECT_EQ(call(input, {5, 5, 1, 1}, out), Error::InvalidArgument);  // larger than the input
  EXPECT_EQ(call(input, {2, 2, 0, 2}, out), Error::InvalidArgument);  // stride 0
  Pool empty_range{2, 2, 2, 2};
  empty_range.act_min = 5;
  empty_range.act_max = 4;
  EXPECT_EQ(call(input, empty_range, out), Error::InvalidArgument);
  TestTensor wide(ScalarType::Short, {1, 4, 4, 2});
  EXPECT_EQ(call(wide, {2, 2, 2, 2}, out), Error::InvalidArgument);
}

// int16 activations (a16w8): arm_max_pool_s16.
TEST(QuantizedMaxPool2dS16, PaddedBatchesTailsAndClamps) {
  Pool p{3, 3, 2, 2};
  p.pad_h = p.pad_w = 1;
  p.act_min = -32767;
  p.act_max = 32767;
  check({2, 7, 9, 5}, p, 11, ScalarType::Short);
  check({1, 4, 4, 20}, {2, 2, 2, 2, 0, 0, -32767, 32767}, 12, ScalarType::Short);  // 20 channels: 8-lane tails
  check({1, 6, 6, 8}, {2, 2, 2, 2, 0, 0, 0, 1000}, 13, ScalarType::Short);  // a fused relu-like clamp
  TestTensor x(ScalarType::Short, {1, 4, 4, 2}), out(ScalarType::Short, {1, 2, 2, 2});
  TestTensor narrow(ScalarType::Char, {1, 2, 2, 2});
  EXPECT_EQ(call(x, {2, 2, 2, 2, 0, 0, -32767, 32767}, narrow), Error::InvalidArgument);  // int16 in, int8 out
  EXPECT_EQ(call(x, {2, 2, 2, 2, 0, 0, -32768, 32767}, out), Error::InvalidArgument);  // below the symmetric range
}

}  // namespace
