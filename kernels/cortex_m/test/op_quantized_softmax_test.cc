// cortex_m::quantized_softmax.out (arm_softmax_s8) against the exact softmax of the dequantized rows, computed
// in double and expressed in the output's 1/256 steps from -128: every output within one step on every
// CMSIS-NN code path (its fixed-point exp and reciprocal, and the final rounding, each lose under half a
// step), and exact where the arithmetic is (equal entries, entries below diff_min, one dominant entry).
#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/testing/harness.h"

namespace {

using namespace etarm::kernels::testing;

constexpr const char* kOp = "cortex_m::quantized_softmax.out";

// TFLite's softmax parameters for beta 1: input_scale * 2^26 (Q5.26 differences) as a Q0.31
// multiplier and a left shift, and the smallest difference whose exp is not lost.
struct Softmax {
  int64_t multiplier, left_shift, diff_min;
};

Softmax softmax_of(double input_scale) {
  int exponent;
  const double mantissa = std::frexp(input_scale * (1 << 26), &exponent);
  int64_t multiplier = std::llround(mantissa * 2147483648.0);
  if (multiplier == (int64_t{1} << 31)) {
    multiplier >>= 1;
    ++exponent;
  }
  const double radius = 31.0 * (1 << 26) / std::ldexp(1.0, exponent);
  return {multiplier, exponent, -static_cast<int64_t>(std::floor(radius))};
}

Error call(TestTensor& in, const Softmax& p, TestTensor& out) {
  return KernelCall(kOp).tensor(in).integer(p.multiplier).integer(p.left_shift).integer(p.diff_min).out(out).run();
}

// Every output within one step of the exact softmax of its row (last dim `row`) at `scale`.
void check_within_one_step(TestTensor& in, double scale, int32_t row, const std::vector<int32_t>& sizes) {
  TestTensor out(ScalarType::Char, sizes);
  ASSERT_EQ(call(in, softmax_of(scale), out), Error::Ok);
  const int8_t* x = in.data<int8_t>();
  const int8_t* y = out.data<int8_t>();
  double worst = 0;
  for (size_t start = 0; start < in.numel(); start += row) {
    int8_t max = x[start];
    for (int32_t j = 1; j < row; ++j) {
      max = x[start + j] > max ? x[start + j] : max;
    }
    double sum = 0;
    for (int32_t j = 0; j < row; ++j) {
      sum += std::exp(scale * (x[start + j] - max));
    }
    for (int32_t j = 0; j < row; ++j) {
      const double exact = std::exp(scale * (x[start + j] - max)) / sum * 256 - 128;
      worst = std::fmax(worst, std::fabs(y[start + j] - exact));
    }
  }
  EXPECT_TRUE(worst <= 1.0);
}

TEST(QuantizedSoftmax, RandomRowsAtSeveralScales) {
  // Row of 37: MVE's 16-wide max, 4-wide exps and their tails.
  TestTensor in(ScalarType::Char, {6, 37});
  fill_uniform(in, 1, -128, 127);
  for (double scale : {0.01, 0.05, 0.1, 0.3, 1.0}) {
    check_within_one_step(in, scale, 37, {6, 37});
  }
  TestTensor rank3(ScalarType::Char, {2, 3, 5}), single(ScalarType::Char, {1});
  fill_uniform(rank3, 2, -128, 127);
  fill_uniform(single, 3, -128, 127);
  check_within_one_step(rank3, 0.08, 5, {2, 3, 5});
  check_within_one_step(single, 0.08, 1, {1});
}

TEST(QuantizedSoftmax, ExactWhereTheArithmeticIs) {
  TestTensor in(ScalarType::Char, {3, 4}), out(ScalarType::Char, {3, 4}), want(ScalarType::Char, {3, 4});
  // Equal entries: 1/4 each (64 steps above -128); one entry 127 steps above the others at scale 1: all of
  // it; entries below diff_min (-15 at scale 1) are 0 while the others share the rest.
  in.set<int8_t>({5, 5, 5, 5, 127, 0, 0, 0, 100, 100, 84, 80});
  ASSERT_EQ(call(in, softmax_of(1.0), out), Error::Ok);
  want.set<int8_t>({-64, -64, -64, -64, 127, -128, -128, -128, 0, 0, -128, -128});
  EXPECT_TENSOR_EQ(out, want);
}

TEST(QuantizedSoftmax, EmptyInput) {
  TestTensor in(ScalarType::Char, {0, 4}), out(ScalarType::Char, {0, 4});
  EXPECT_EQ(call(in, softmax_of(0.1), out), Error::Ok);
}

TEST(QuantizedSoftmax, RejectsBadArguments) {
  TestTensor in(ScalarType::Char, {2, 4}), out(ScalarType::Char, {2, 4}), f(ScalarType::Float, {2, 4});
  TestTensor scalar(ScalarType::Char, {}), long_row(ScalarType::Char, {1, 4096}), long_out(ScalarType::Char, {1, 4096});
  TestTensor other_rank(ScalarType::Char, {8});
  const Softmax p = softmax_of(0.1);
  EXPECT_EQ(call(f, p, out), Error::InvalidArgument);
  EXPECT_EQ(call(in, p, f), Error::InvalidArgument);
  EXPECT_EQ(call(scalar, p, scalar), Error::InvalidArgument);
  EXPECT_EQ(call(long_row, p, long_out), Error::InvalidArgument);  // its sum of exps could overflow
  EXPECT_EQ(call(in, p, other_rank), Error::InvalidArgument);
  Softmax bad = p;
  bad.multiplier = 1 << 20;
  EXPECT_EQ(call(in, bad, out), Error::InvalidArgument);
  bad = p;
  bad.left_shift = 31;
  EXPECT_EQ(call(in, bad, out), Error::InvalidArgument);
  bad = p;
  bad.diff_min = 1;
  EXPECT_EQ(call(in, bad, out), Error::InvalidArgument);
  EXPECT_EQ(KernelCall(kOp).tensor(in).integer(p.multiplier).out(out).run(), Error::InvalidArgument);
}

}  // namespace
