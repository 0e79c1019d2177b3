// cortex_m::quantized_mean_hw.out against a plain integer reference: per image and channel, the int64 sum over H and
// W of (input - input_zero_point), one RESCALE rounding half up (scales below and above 1), the output zero point and
// the clamp; NHWC input, [N, C] output. int16 values (a16w8) likewise: zero points 0, at most 2^16 taps.
#include <cstdint>
#include <vector>

#include "kernels/cortex_m/test/requantize_reference.h"
#include "kernels/testing/harness.h"

namespace {

using namespace etarm::kernels::testing;

constexpr const char* kOp = "cortex_m::quantized_mean_hw.out";

struct Mean {
  int32_t input_zp = 0, output_zp = 0, act_min = -128, act_max = 127;
  double scale;  // input_scale / (H * W * output_scale)
};

Error call(TestTensor& input, const Mean& m, TestTensor& out) {
  const Params p = params(m.output_zp, m.scale);
  return KernelCall(kOp)
      .tensor(input).integer(m.input_zp).integer(p.multiplier).integer(p.shift).integer(m.output_zp)
      .integer(m.act_min).integer(m.act_max).out(out).run();
}

// T: int8_t or int16_t, the input's and output's type.
template <typename T>
void check_values(TestTensor& input, const Mean& m) {
  const int32_t n = input.sizes()[0], h = input.sizes()[1], w = input.sizes()[2], c = input.sizes()[3];
  TestTensor out(input.dtype(), {n, c}), want(input.dtype(), {n, c});
  ASSERT_EQ(call(input, m, out), Error::Ok);
  const Params p = params(m.output_zp, m.scale);
  const T* in = input.data<T>();
  for (int32_t b = 0; b < n; ++b) {
    for (int32_t ch = 0; ch < c; ++ch) {
      int64_t sum = 0;
      for (int32_t i = 0; i < h * w; ++i) {
        sum += in[(b * h * w + i) * c + ch] - m.input_zp;
      }
      int64_t q = rescale(sum, p) + p.zero_point;
      q = q < m.act_min ? m.act_min : (q > m.act_max ? m.act_max : q);
      want.data<T>()[b * c + ch] = static_cast<T>(q);
    }
  }
  EXPECT_TENSOR_EQ(out, want);
}

void check(const std::vector<int32_t>& shape, const Mean& m, uint32_t seed) {
  TestTensor input(ScalarType::Char, shape);
  fill_uniform(input, seed, -128, 127);
  check_values<int8_t>(input, m);
}

void check_s16(const std::vector<int32_t>& shape, const Mean& m, uint32_t seed) {
  TestTensor input(ScalarType::Short, shape);
  fill_uniform(input, seed, -32767, 32767);
  check_values<int16_t>(input, m);
}

TEST(QuantizedMeanHw, GlobalAveragePoolRescaled) {
  Mean m;
  m.input_zp = -7;
  m.output_zp = 12;
  m.scale = 0.05 / (64 * 0.02);  // the output's steps finer than the input's
  check({1, 8, 8, 16}, m, 1);
}

TEST(QuantizedMeanHw, BatchesAndOddSizes) {
  Mean m;
  m.input_zp = 30;
  m.output_zp = -5;
  m.scale = 1.3 / 35;
  check({3, 5, 7, 11}, m, 2);
}

TEST(QuantizedMeanHw, HalvesRoundUp) {
  // A 2x2 mean at the input's own parameters: sums of -2 and 2 are -0.5 and 0.5 steps, rounding to 0 and 1.
  TestTensor input(ScalarType::Char, {1, 2, 2, 2});
  const std::vector<int8_t> values = {-1, 1, -1, 1, 0, 0, 0, 0};
  for (size_t i = 0; i < values.size(); ++i) {
    input.data<int8_t>()[i] = values[i];
  }
  Mean m;
  m.scale = 0.25;
  TestTensor out(ScalarType::Char, {1, 2});
  ASSERT_EQ(call(input, m, out), Error::Ok);
  EXPECT_EQ(out.data<int8_t>()[0], 0);
  EXPECT_EQ(out.data<int8_t>()[1], 1);
  check_values<int8_t>(input, m);
}

TEST(QuantizedMeanHw, ScaleAboveOneSaturates) {
  Mean m;
  m.input_zp = 3;
  m.scale = 3.7;  // a 1x1 mean into finer steps: a left shift, then int8 saturation
  check({2, 1, 1, 9}, m, 3);
}

TEST(QuantizedMeanHw, FusedActivationClamps) {
  Mean m;
  m.output_zp = -20;
  m.act_min = -20;  // relu
  m.act_max = 50;
  m.scale = 0.9 / 12;
  check({1, 3, 4, 6}, m, 4);
}

TEST(QuantizedMeanHw, RejectsBadArguments) {
  TestTensor input(ScalarType::Char, {1, 2, 2, 3});
  fill_uniform(input, 5, -128, 127);
  TestTensor out(ScalarType::Char, {1, 3});
  auto run = [&](TestTensor& in, int64_t zp, int64_t multiplier, int64_t shift, int64_t lo, TestTensor& o) {
    return KernelCall(kOp).tensor(in).integer(zp).integer(multiplier).integer(shift).integer(0).integer(lo)
        .integer(127).out(o).run();
  };
  EXPECT_EQ(run(input, 0, 1 << 30, -2, -128, out), Error::Ok);
  EXPECT_EQ(run(input, 200, 1 << 30, -2, -128, out), Error::InvalidArgument);  // zero point beyond int8
  EXPECT_EQ(run(input, 0, 0, -2, -128, out), Error::InvalidArgument);
  EXPECT_EQ(run(input, 0, 1 << 30, 31, -128, out), Error::InvalidArgument);
  EXPECT_EQ(run(input, 0, 1 << 30, -2, -129, out), Error::InvalidArgument);
  TestTensor four_d(ScalarType::Char, {1, 1, 1, 3});
  EXPECT_EQ(run(input, 0, 1 << 30, -2, -128, four_d), Error::InvalidArgument);
  TestTensor floats(ScalarType::Float, {1, 2, 2, 3});
  EXPECT_EQ(run(floats, 0, 1 << 30, -2, -128, out), Error::InvalidArgument);
  TestTensor three_d(ScalarType::Char, {2, 2, 3});
  EXPECT_EQ(run(three_d, 0, 1 << 30, -2, -128, out), Error::InvalidArgument);
}

TEST(QuantizedMeanHwS16, RescaledBatchesClampsAndSaturation) {
  Mean m;
  m.act_min = -32767;
  m.act_max = 32767;
  m.scale = 0.05 / (64 * 0.02);
  check_s16({1, 8, 8, 16}, m, 11);
  m.scale = 1.3 / 35;
  check_s16({3, 5, 7, 11}, m, 12);
  m.scale = 3.7;  // a 1x1 mean into finer steps: saturates at +-32767
  check_s16({2, 1, 1, 9}, m, 13);
  m.act_min = 0;  // relu
  m.act_max = 20000;
  m.scale = 0.9 / 12;
  check_s16({1, 3, 4, 6}, m, 14);
  Mean largest;  // 2^16 taps of +-32767: the int32 sums' limit
  largest.act_min = -32767;
  largest.act_max = 32767;
  largest.scale = 1.0 / 65536;
  check_s16({1, 256, 256, 1}, largest, 15);
}

TEST(QuantizedMeanHwS16, RejectsOffsetsTooManyTapsAndMixedTypes) {
  TestTensor input(ScalarType::Short, {1, 2, 2, 3}), out(ScalarType::Short, {1, 3}), int8_out(ScalarType::Char, {1, 3});
  TestTensor too_many(ScalarType::Short, {1, 257, 256, 1}), one(ScalarType::Short, {1, 1});
  fill_uniform(input, 16, -32767, 32767);
  auto run = [&](TestTensor& in, int64_t zp, int64_t lo, TestTensor& o) {
    return KernelCall(kOp).tensor(in).integer(zp).integer(1 << 30).integer(-2).integer(0).integer(lo)
        .integer(32767).out(o).run();
  };
  EXPECT_EQ(run(input, 0, -32767, out), Error::Ok);
  EXPECT_EQ(run(input, 2, -32767, out), Error::InvalidArgument);  // int16 is symmetric
  EXPECT_EQ(run(input, 0, -32768, out), Error::InvalidArgument);  // beyond the symmetric range
  EXPECT_EQ(run(input, 0, -32767, int8_out), Error::InvalidArgument);
  EXPECT_EQ(run(too_many, 0, -32767, one), Error::InvalidArgument);  // 65792 taps could overflow the int32 sums
}

}  // namespace
