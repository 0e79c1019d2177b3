// cortex_m::quantized_softmax_int16.out (the project's int16 softmax, a16w8) against the exact softmax of the
// dequantized rows, computed in double and expressed in the output's 1/32767 steps: every output within one step
// (the interpolated exp2 loses under 1e-6 of a value, the reciprocal under 0.03 of a step, then one rounding), on
// every path (scalar C everywhere). With the two cases the snapshot's arm_softmax_s16 got wrong: a dominant entry
// (it wrote 32768, wrapping to -32768) and rows whose sum of exps lies just below a power of two (it about doubled
// them).
#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/testing/harness.h"

namespace {

using namespace etarm::kernels::testing;

constexpr const char* kOp = "cortex_m::quantized_softmax_int16.out";

// What the pass computes: input_scale * log2(e) in Q16 as multiplier * 2^(shift - 31), and 2^-(i/256) in Q30.
struct Parameters {
  int64_t multiplier, shift;
};

Parameters parameters_of(double input_scale) {
  int exponent;
  const double mantissa = std::frexp(input_scale * std::log2(std::exp(1.0)) * 65536.0, &exponent);
  int64_t multiplier = std::llround(mantissa * 2147483648.0);
  if (multiplier == (int64_t{1} << 31)) {
    multiplier >>= 1;
    ++exponent;
  }
  return {multiplier, exponent};
}

void fill_exp2_table(TestTensor& table) {
  int32_t* t = table.data<int32_t>();
  for (int i = 0; i <= 256; ++i) {
    t[i] = static_cast<int32_t>(std::llround(std::ldexp(std::exp2(-i / 256.0), 30)));
  }
}

Error call(TestTensor& in, TestTensor& table, const Parameters& p, TestTensor& out) {
  return KernelCall(kOp).tensor(in).tensor(table).integer(p.multiplier).integer(p.shift).out(out).run();
}

// The largest |output - softmax * 32767| over rows of `row` entries at `scale`.
double worst_step(TestTensor& in, double scale, int32_t row) {
  TestTensor table(ScalarType::Int, {257}), out(ScalarType::Short, in.sizes());
  fill_exp2_table(table);
  if (call(in, table, parameters_of(scale), out) != Error::Ok) {
    return 1e9;
  }
  const int16_t* x = in.data<int16_t>();
  const int16_t* y = out.data<int16_t>();
  double worst = 0;
  for (size_t start = 0; start < in.numel(); start += row) {
    int16_t max = x[start];
    for (int32_t j = 1; j < row; ++j) {
      max = x[start + j] > max ? x[start + j] : max;
    }
    double sum = 0;
    for (int32_t j = 0; j < row; ++j) {
      sum += std::exp(scale * (x[start + j] - max));
    }
    for (int32_t j = 0; j < row; ++j) {
      const double exact = std::exp(scale * (x[start + j] - max)) / sum * 32767;
      worst = std::fmax(worst, std::fabs(y[start + j] - exact));
    }
  }
  return worst;
}

TEST(QuantizedSoftmaxInt16, RandomRowsAtSeveralScales) {
  TestTensor wide(ScalarType::Short, {6, 37}), narrow(ScalarType::Short, {6, 37});
  fill_uniform(wide, 1, -32767, 32767);
  fill_uniform(narrow, 2, -400, 400);
  for (double scale : {1e-4, 3e-4, 1e-3}) {
    EXPECT_TRUE(worst_step(wide, scale, 37) <= 1.0);
  }
  for (double scale : {0.003, 0.01, 0.05}) {
    EXPECT_TRUE(worst_step(narrow, scale, 37) <= 1.0);
  }
  TestTensor rank3(ScalarType::Short, {2, 3, 5}), single(ScalarType::Short, {1}), long_row(ScalarType::Short, {1, 5000});
  fill_uniform(rank3, 3, -3000, 3000);
  fill_uniform(single, 4, -32767, 32767);
  fill_uniform(long_row, 5, -2000, 2000);
  EXPECT_TRUE(worst_step(rank3, 1e-3, 5) <= 1.0);
  EXPECT_TRUE(worst_step(single, 1e-3, 1) <= 1.0);
  EXPECT_TRUE(worst_step(long_row, 1e-3, 5000) <= 1.0);  // no row limit: the sum is int64
}

TEST(QuantizedSoftmaxInt16, DominantEntryIsAtMost32767) {
  // arm_softmax_s16 of the snapshot wrote 32768 here, stored as -32768.
  TestTensor in(ScalarType::Short, {3, 2}), out(ScalarType::Short, {3, 2}), want(ScalarType::Short, {3, 2});
  TestTensor table(ScalarType::Int, {257});
  fill_exp2_table(table);
  in.set<int16_t>({32767, -32767, -5, -32767, 100, 0});
  ASSERT_EQ(call(in, table, parameters_of(1.0), out), Error::Ok);
  want.set<int16_t>({32767, 0, 32767, 0, 32767, 0});
  EXPECT_TENSOR_EQ(out, want);
  // Equal entries: exactly round(32767 / n).
  TestTensor equal(ScalarType::Short, {1, 4}), quarters(ScalarType::Short, {1, 4});
  equal.set<int16_t>({-7, -7, -7, -7});
  ASSERT_EQ(call(equal, table, parameters_of(0.01), out), Error::InvalidArgument);  // out's rank differs
  ASSERT_EQ(call(equal, table, parameters_of(0.01), quarters), Error::Ok);
  TestTensor expected(ScalarType::Short, {1, 4});
  expected.set<int16_t>({8192, 8192, 8192, 8192});
  EXPECT_TENSOR_EQ(quarters, expected);
}

TEST(QuantizedSoftmaxInt16, SumsJustBelowAPowerOfTwo) {
  // At scale 1e-5 a difference of one step is an exp just below 2^30 (Q30): sums of 2, 4 and 8 such entries lie
  // just below 2^31, 2^32 and 2^33; arm_softmax_s16 of the snapshot about doubled rows like these.
  TestTensor two(ScalarType::Short, {1, 2}), four(ScalarType::Short, {1, 4}), eight(ScalarType::Short, {1, 8});
  two.set<int16_t>({0, -1});
  four.set<int16_t>({0, -1, -1, -1});
  eight.set<int16_t>({0, -1, -1, -1, -1, -1, -1, -1});
  for (double scale : {1e-5, 1e-4}) {
    EXPECT_TRUE(worst_step(two, scale, 2) <= 1.0);
    EXPECT_TRUE(worst_step(four, scale, 4) <= 1.0);
    EXPECT_TRUE(worst_step(eight, scale, 8) <= 1.0);
  }
}

TEST(QuantizedSoftmaxInt16, EmptyInput) {
  TestTensor in(ScalarType::Short, {0, 4}), out(ScalarType::Short, {0, 4}), table(ScalarType::Int, {257});
  fill_exp2_table(table);
  EXPECT_EQ(call(in, table, parameters_of(0.1), out), Error::Ok);
}

TEST(QuantizedSoftmaxInt16, RejectsBadArguments) {
  TestTensor in(ScalarType::Short, {2, 4}), out(ScalarType::Short, {2, 4}), int8(ScalarType::Char, {2, 4});
  TestTensor scalar(ScalarType::Short, {}), table(ScalarType::Int, {257}), short_table(ScalarType::Int, {256});
  TestTensor bad_table(ScalarType::Int, {257}), float_table(ScalarType::Float, {257});
  fill_exp2_table(table);
  fill_exp2_table(bad_table);
  bad_table.data<int32_t>()[100] = bad_table.data<int32_t>()[99] + 1;  // increasing: exps above 2^30
  const Parameters p = parameters_of(0.01);
  EXPECT_EQ(call(in, table, p, out), Error::Ok);
  EXPECT_EQ(call(int8, table, p, out), Error::InvalidArgument);
  EXPECT_EQ(call(in, table, p, int8), Error::InvalidArgument);
  EXPECT_EQ(call(scalar, table, p, scalar), Error::InvalidArgument);
  EXPECT_EQ(call(in, short_table, p, out), Error::InvalidArgument);
  EXPECT_EQ(call(in, bad_table, p, out), Error::InvalidArgument);
  EXPECT_EQ(call(in, float_table, p, out), Error::InvalidArgument);
  Parameters bad = p;
  bad.multiplier = 1 << 20;
  EXPECT_EQ(call(in, table, bad, out), Error::InvalidArgument);
  bad = p;
  bad.shift = 31;
  EXPECT_EQ(call(in, table, bad, out), Error::InvalidArgument);
  EXPECT_EQ(KernelCall(kOp).tensor(in).tensor(table).integer(p.multiplier).out(out).run(), Error::InvalidArgument);
}

}  // namespace
