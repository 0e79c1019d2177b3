// cortex_m::quantized_clamp.out against a plain integer reference: each int8 value centred on the input's zero point,
// one RESCALE rounding half up (scales of exactly 1, above 1 and below 1), the output zero point and the clamp; any
// rank, out resized to the input's shape. int16 values (a16w8) likewise: zero points 0, bounds within [-32767, 32767].
#include <cstdint>
#include <vector>

#include "kernels/cortex_m/test/requantize_reference.h"
#include "kernels/testing/harness.h"

namespace {

using namespace etarm::kernels::testing;

constexpr const char* kOp = "cortex_m::quantized_clamp.out";

struct Clamp {
  int32_t input_zp = 0, output_zp = 0, act_min = -128, act_max = 127;
  double scale;  // input_scale / output_scale
};

Error call(TestTensor& input, const Clamp& c, TestTensor& out) {
  const Params p = params(c.output_zp, c.scale);
  return KernelCall(kOp)
      .tensor(input).integer(c.input_zp).integer(p.multiplier).integer(p.shift).integer(c.output_zp)
      .integer(c.act_min).integer(c.act_max).out(out).run();
}

// T: int8_t or int16_t, the input's and output's type.
template <typename T>
void check_values(TestTensor& input, const Clamp& c) {
  TestTensor out(input.dtype(), input.sizes()), want(input.dtype(), input.sizes());
  ASSERT_EQ(call(input, c, out), Error::Ok);
  const Params p = params(c.output_zp, c.scale);
  for (size_t i = 0; i < input.numel(); ++i) {
    int64_t q = rescale(input.data<T>()[i] - c.input_zp, p) + p.zero_point;
    q = q < c.act_min ? c.act_min : (q > c.act_max ? c.act_max : q);
    want.data<T>()[i] = static_cast<T>(q);
  }
  EXPECT_TENSOR_EQ(out, want);
}

void check(const std::vector<int32_t>& shape, const Clamp& c, uint32_t seed) {
  TestTensor input(ScalarType::Char, shape);
  fill_uniform(input, seed, -128, 127);
  check_values<int8_t>(input, c);
}

void check_s16(const std::vector<int32_t>& shape, const Clamp& c, uint32_t seed) {
  TestTensor input(ScalarType::Short, shape);
  fill_uniform(input, seed, -32767, 32767);
  check_values<int16_t>(input, c);
}

TEST(QuantizedClamp, ReluAtTheInputsParameters) {
  Clamp c;
  c.input_zp = c.output_zp = c.act_min = -9;  // relu: from the zero point
  c.scale = 1.0;
  check({2, 3, 5, 7}, c, 1);
}

TEST(QuantizedClamp, FinerOutputStepsAndBothBounds) {
  Clamp c;  // hardtanh whose observer saw a narrower range than its input's: a scale above 1
  c.input_zp = 30;
  c.output_zp = -26;
  c.act_min = -100;
  c.act_max = 90;
  c.scale = 3.8;
  check({1, 40}, c, 2);
}

TEST(QuantizedClamp, CoarserOutputStepsAnyRank) {
  Clamp c;
  c.input_zp = -128;
  c.output_zp = 5;
  c.act_min = 5;
  c.scale = 0.37;
  check({33}, c, 3);
  check({1, 2, 1, 3, 2}, c, 4);
}

TEST(QuantizedClamp, HalvesRoundUp) {
  TestTensor input(ScalarType::Char, {4});
  const std::vector<int8_t> values = {-3, -1, 1, 3};  // halves: -1.5, -0.5, 0.5, 1.5
  for (size_t i = 0; i < values.size(); ++i) {
    input.data<int8_t>()[i] = values[i];
  }
  Clamp c;
  c.scale = 0.5;
  TestTensor out(ScalarType::Char, {4});
  ASSERT_EQ(call(input, c, out), Error::Ok);
  const std::vector<int8_t> want = {-1, 0, 1, 2};
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(out.data<int8_t>()[i], want[i]);
  }
}

TEST(QuantizedClamp, RejectsBadArguments) {
  TestTensor input(ScalarType::Char, {2, 3});
  fill_uniform(input, 5, -128, 127);
  TestTensor out(ScalarType::Char, {2, 3});
  auto run = [&](TestTensor& in, int64_t zp, int64_t multiplier, int64_t shift, int64_t lo, int64_t hi, TestTensor& o) {
    return KernelCall(kOp).tensor(in).integer(zp).integer(multiplier).integer(shift).integer(0).integer(lo)
        .integer(hi).out(o).run();
  };
  EXPECT_EQ(run(input, 0, 1 << 30, 3, -128, 127, out), Error::Ok);
  EXPECT_EQ(run(input, -129, 1 << 30, 3, -128, 127, out), Error::InvalidArgument);  // zero point beyond int8
  EXPECT_EQ(run(input, 0, -5, 3, -128, 127, out), Error::InvalidArgument);
  EXPECT_EQ(run(input, 0, 1 << 30, 31, -128, 127, out), Error::InvalidArgument);
  EXPECT_EQ(run(input, 0, 1 << 30, 3, 10, 9, out), Error::InvalidArgument);  // an empty range
  TestTensor other_rank(ScalarType::Char, {6});
  EXPECT_EQ(run(input, 0, 1 << 30, 3, -128, 127, other_rank), Error::InvalidArgument);
  TestTensor floats(ScalarType::Float, {2, 3});
  EXPECT_EQ(run(floats, 0, 1 << 30, 3, -128, 127, out), Error::InvalidArgument);
}

TEST(QuantizedClampS16, RescaledWithBothBoundsAnyRank) {
  Clamp relu;  // a relu at the input's parameters
  relu.act_min = 0;
  relu.act_max = 32767;
  relu.scale = 1.0;
  check_s16({2, 3, 5, 7}, relu, 11);
  Clamp hardtanh;  // finer output steps: a scale above 1, saturating at both bounds
  hardtanh.act_min = -20000;
  hardtanh.act_max = 25000;
  hardtanh.scale = 3.8;
  check_s16({1, 40}, hardtanh, 12);
  Clamp coarser;
  coarser.act_min = 0;
  coarser.act_max = 32767;
  coarser.scale = 0.37;
  check_s16({1, 2, 1, 3, 2}, coarser, 13);
}

TEST(QuantizedClampS16, RejectsOffsetsWideBoundsAndMixedTypes) {
  TestTensor input(ScalarType::Short, {2, 3}), out(ScalarType::Short, {2, 3}), int8_out(ScalarType::Char, {2, 3});
  fill_uniform(input, 14, -32767, 32767);
  auto run = [&](int64_t in_zp, int64_t out_zp, int64_t lo, int64_t hi, TestTensor& o) {
    return KernelCall(kOp).tensor(input).integer(in_zp).integer(1 << 30).integer(1).integer(out_zp).integer(lo)
        .integer(hi).out(o).run();
  };
  EXPECT_EQ(run(0, 0, -32767, 32767, out), Error::Ok);
  EXPECT_EQ(run(1, 0, -32767, 32767, out), Error::InvalidArgument);  // int16 is symmetric
  EXPECT_EQ(run(0, -1, -32767, 32767, out), Error::InvalidArgument);
  EXPECT_EQ(run(0, 0, -32768, 32767, out), Error::InvalidArgument);  // beyond the symmetric range
  EXPECT_EQ(run(0, 0, -32767, 32767, int8_out), Error::InvalidArgument);
}

}  // namespace
