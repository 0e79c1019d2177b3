// cortex_m::quantized_max_pool2d.out against a plain reference: the maximum over each window's taps inside the
// input (torch pads a max pool with -inf, so padding never wins), then the clamp; NHWC, no rescale. On every
// CMSIS-NN code path (arm_max_pool_s8's MVE, DSP and plain C loops).
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

void check(const std::vector<int32_t>& shape, const Pool& p, uint32_t seed) {
  const int32_t n = shape[0], h = shape[1], w = shape[2], c = shape[3];
  const int32_t oh = (h + 2 * p.pad_h - p.kernel_h) / p.stride_h + 1;
  const int32_t ow = (w + 2 * p.pad_w - p.kernel_w) / p.stride_w + 1;
  TestTensor input(ScalarType::Char, shape), out(ScalarType::Char, {n, oh, ow, c}), want(ScalarType::Char, {n, oh, ow, c});
  fill_uniform(input, seed, -128, 127);
  ASSERT_EQ(call(input, p, out), Error::Ok);
  const int8_t* in = input.data<int8_t>();
  for (int32_t b = 0; b < n; ++b) {
    for (int32_t y = 0; y < oh; ++y) {
      for (int32_t x = 0; x < ow; ++x) {
        for (int32_t ch = 0; ch < c; ++ch) {
          int32_t best = INT32_MIN;
          for (int32_t i = 0; i < p.kernel_h; ++i) {
            for (int32_t j = 0; j < p.kernel_w; ++j) {
              const int32_t iy = y * p.stride_h - p.pad_h + i, ix = x * p.stride_w - p.pad_w + j;
              if (iy >= 0 && iy < h && ix >= 0 && ix < w) {
                best = std::max<int32_t>(best, in[((b * h + iy) * w + ix) * c + ch]);
              }
            }
          }
          want.data<int8_t>()[((b * oh + y) * ow + x) * c + ch] =
              static_cast<int8_t>(std::min(std::max(best, p.act_min), p.act_max));
        }
      }
    }
  }
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

}  // namespace
