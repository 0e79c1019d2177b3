// cortex_m::quantized_add.out against a plain integer reference of TOSA's quantized ADD: each
// operand RESCALEd (single rounding) to int32 after a left shift of 20, an int32 ADD, a RESCALE
// into the int8 output. Bit-exact on every CMSIS-NN code path (host: plain C; Corstone-300: MVE;
// M55 without MVE, M4, M33: DSP). int16 (a16w8): zero points 0, a left shift of 15, int16 saturation.
#include <cmath>
#include <cstdint>

#include "kernels/cortex_m/test/requantize_reference.h"
#include "kernels/testing/harness.h"

namespace {

using namespace etarm::kernels::testing;

constexpr const char* kOp = "cortex_m::quantized_add.out";

int64_t reference(int64_t x, int64_t y, const Params& a, const Params& b, const Params& o, bool s16) {
  const int left_shift = s16 ? 15 : 20;
  const int64_t sum = rescale((x - a.zero_point) << left_shift, a) + rescale((y - b.zero_point) << left_shift, b);
  const int64_t q = rescale(sum, o) + o.zero_point;
  return s16 ? clamp_int16(q) : clamp_int8(q);
}


using Add = Additive;

Error call(TestTensor& a, TestTensor& b, const Add& p, TestTensor& out) {
  return KernelCall(kOp)
      .tensor(a).integer(p.a.zero_point).integer(p.a.multiplier).integer(p.a.shift)
      .tensor(b).integer(p.b.zero_point).integer(p.b.multiplier).integer(p.b.shift)
      .integer(p.out.zero_point).integer(p.out.multiplier).integer(p.out.shift)
      .out(out).run();
}

void check_add(TestTensor& a, TestTensor& b, const Add& p, std::vector<int32_t> out_sizes) {
  TestTensor out(a.dtype(), out_sizes), want(a.dtype(), out_sizes);
  ASSERT_EQ(call(a, b, p, out), Error::Ok);
  compute(want, [&](const Index& i) {
    const auto x = static_cast<int64_t>(broadcast_value(a, i));
    const auto y = static_cast<int64_t>(broadcast_value(b, i));
    return static_cast<double>(reference(x, y, p.a, p.b, p.out, a.dtype() == ScalarType::Short));
  });
  EXPECT_TENSOR_EQ(out, want);
}

const Add kTypical = additive(0.02, -3, 0.015, 7, 0.03, -10);

TEST(QuantizedAdd, SameShapeRandom) {
  // 37 elements: MVE's 4-lane tail and the DSP path's 4-at-a-time loop plus remainder.
  TestTensor a(ScalarType::Char, {37}), b(ScalarType::Char, {37});
  fill_uniform(a, 1, -128, 127);
  fill_uniform(b, 2, -128, 127);
  check_add(a, b, kTypical, {37});
}

TEST(QuantizedAdd, Rank4AndVeryDifferentScales) {
  TestTensor a(ScalarType::Char, {2, 3, 4, 5}), b(ScalarType::Char, {2, 3, 4, 5});
  fill_uniform(a, 3, -128, 127);
  fill_uniform(b, 4, -128, 127);
  check_add(a, b, additive(0.5, 0, 0.001, -128, 0.25, 127), {2, 3, 4, 5});
  check_add(a, b, additive(1e-4, 12, 0.05, 0, 0.05, 0), {2, 3, 4, 5});
}

TEST(QuantizedAdd, SaturatesAtTheInt8Range) {
  TestTensor a(ScalarType::Char, {6}), b(ScalarType::Char, {6});
  a.set<int8_t>({-128, 127, 127, -128, 0, 64});
  b.set<int8_t>({-128, 127, -128, 127, 0, 64});
  const Add small_output = additive(0.1, 0, 0.1, 0, 0.05, 0);  // sums beyond the output's range clamp
  check_add(a, b, small_output, {6});
  TestTensor out(ScalarType::Char, {6}), want(ScalarType::Char, {6});
  ASSERT_EQ(call(a, b, small_output, out), Error::Ok);
  want.set<int8_t>({-128, 127, -2, -2, 0, 127});  // -25.6 + -25.6 -> -1024 steps; 6.4 + 6.4 -> 256
  EXPECT_TENSOR_EQ(out, want);
}

TEST(QuantizedAdd, RoundsHalfUp) {
  // Equal scales, output scale twice theirs: (x + y) / 2 exactly, .5 rounds toward +inf as TOSA's
  // single rounding does (not to even, not away from zero).
  TestTensor a(ScalarType::Char, {4}), b(ScalarType::Char, {4}), out(ScalarType::Char, {4});
  TestTensor want(ScalarType::Char, {4});
  a.set<int8_t>({1, -1, 3, -3});
  b.set<int8_t>({0, 0, 0, 0});
  ASSERT_EQ(call(a, b, additive(0.1, 0, 0.1, 0, 0.2, 0), out), Error::Ok);
  want.set<int8_t>({1, 0, 2, -1});
  EXPECT_TENSOR_EQ(out, want);
}

TEST(QuantizedAdd, BroadcastsTrailingAndLeadingDims) {
  TestTensor a(ScalarType::Char, {2, 3, 4}), row(ScalarType::Char, {4}), column(ScalarType::Char, {3, 1});
  fill_uniform(a, 5, -128, 127);
  fill_uniform(row, 6, -128, 127);
  fill_uniform(column, 7, -128, 127);
  check_add(a, row, kTypical, {2, 3, 4});
  check_add(row, a, kTypical, {2, 3, 4});
  check_add(a, column, kTypical, {2, 3, 4});
  TestTensor left(ScalarType::Char, {2, 1, 5}), right(ScalarType::Char, {1, 3, 5});
  fill_uniform(left, 8, -128, 127);
  fill_uniform(right, 9, -128, 127);
  check_add(left, right, kTypical, {2, 3, 5});
}

TEST(QuantizedAdd, RankZeroAndEmpty) {
  TestTensor scalar(ScalarType::Char, {}), a(ScalarType::Char, {3, 2});
  scalar.set<int8_t>({-77});
  fill_uniform(a, 10, -128, 127);
  check_add(scalar, a, kTypical, {3, 2});
  TestTensor s2(ScalarType::Char, {});
  s2.set<int8_t>({100});
  check_add(scalar, s2, kTypical, {});
  TestTensor empty(ScalarType::Char, {0, 4}), r(ScalarType::Char, {4});
  check_add(empty, r, kTypical, {0, 4});
}

TEST(QuantizedAdd, RejectsOtherDtypes) {
  TestTensor f(ScalarType::Float, {4}), q(ScalarType::Char, {4}), out(ScalarType::Char, {4});
  TestTensor wide(ScalarType::Short, {4});
  EXPECT_EQ(call(f, q, kTypical, out), Error::InvalidArgument);
  EXPECT_EQ(call(q, wide, kTypical, out), Error::InvalidArgument);
  EXPECT_EQ(call(q, q, kTypical, wide), Error::InvalidArgument);
}

TEST(QuantizedAdd, RejectsParametersOutOfRange) {
  TestTensor a(ScalarType::Char, {4}), b(ScalarType::Char, {4}), out(ScalarType::Char, {4});
  Add p = kTypical;
  p.a.zero_point = 128;
  EXPECT_EQ(call(a, b, p, out), Error::InvalidArgument);
  p = kTypical;
  p.b.multiplier = 0;
  EXPECT_EQ(call(a, b, p, out), Error::InvalidArgument);
  p = kTypical;
  p.out.shift = 1;  // a scale of 1 or more
  EXPECT_EQ(call(a, b, p, out), Error::InvalidArgument);
  p = kTypical;
  p.a.shift = -32;
  EXPECT_EQ(call(a, b, p, out), Error::InvalidArgument);
  p = kTypical;
  p.out.multiplier = int64_t{1} << 31;  // beyond int32
  EXPECT_EQ(call(a, b, p, out), Error::InvalidArgument);
}

TEST(QuantizedAdd, RejectsShapesThatDoNotBroadcastAndBadArguments) {
  TestTensor a(ScalarType::Char, {4}), b(ScalarType::Char, {3}), out(ScalarType::Char, {4});
  EXPECT_EQ(call(a, b, kTypical, out), Error::InvalidArgument);
  TestTensor c(ScalarType::Char, {4}), rank2(ScalarType::Char, {1, 4});
  EXPECT_EQ(call(a, c, kTypical, rank2), Error::InvalidArgument);  // output rank differs
  EXPECT_EQ(KernelCall(kOp).tensor(a).integer(0).integer(1 << 30).integer(-1).tensor(c).out(out).run(),
            Error::InvalidArgument);  // too few arguments
  EXPECT_EQ(KernelCall(kOp)
                .tensor(a).real(0.0).integer(1 << 30).integer(-1)
                .tensor(c).integer(0).integer(1 << 30).integer(-1)
                .integer(0).integer(1 << 30).integer(-1).out(out).run(),
            Error::InvalidArgument);  // a zero point as a Double
}

// int16 activations (a16w8): symmetric, so every zero point is 0 and the range [-32767, 32767].
const Add kTypicalS16 = additive(3e-4, 0, 2e-4, 0, 4e-4, 0, 15);

TEST(QuantizedAddS16, RandomBroadcastAndScales) {
  // 37 elements: MVE's 4-lane tail, the DSP path's pairs plus one; a broadcast row; very different scales.
  TestTensor a(ScalarType::Short, {37}), b(ScalarType::Short, {37});
  fill_uniform(a, 11, -32768, 32767);
  fill_uniform(b, 12, -32768, 32767);
  check_add(a, b, kTypicalS16, {37});
  check_add(a, b, additive(1e-2, 0, 1e-5, 0, 2e-2, 0, 15), {37});
  TestTensor m(ScalarType::Short, {2, 3, 4}), row(ScalarType::Short, {4});
  fill_uniform(m, 13, -32768, 32767);
  fill_uniform(row, 14, -32768, 32767);
  check_add(m, row, kTypicalS16, {2, 3, 4});
}

TEST(QuantizedAddS16, SaturatesAndRoundsHalfUp) {
  TestTensor a(ScalarType::Short, {6}), b(ScalarType::Short, {6}), out(ScalarType::Short, {6});
  TestTensor want(ScalarType::Short, {6});
  a.set<int16_t>({1, -1, 3, -3, 32767, -32768});
  b.set<int16_t>({0, 0, 0, 0, 32767, -32768});
  ASSERT_EQ(call(a, b, additive(0.1, 0, 0.1, 0, 0.2, 0, 15), out), Error::Ok);
  want.set<int16_t>({1, 0, 2, -1, 32767, -32767});  // (x + y) / 2, .5 toward +inf; never -32768
  EXPECT_TENSOR_EQ(out, want);
  check_add(a, b, additive(0.1, 0, 0.1, 0, 0.1, 0, 15), {6});  // sums beyond the range saturate
}

TEST(QuantizedAddS16, RejectsZeroPointsAndMixedTypes) {
  TestTensor a(ScalarType::Short, {4}), b(ScalarType::Short, {4}), out(ScalarType::Short, {4});
  TestTensor narrow(ScalarType::Char, {4});
  EXPECT_EQ(call(a, b, kTypicalS16, out), Error::Ok);
  Add p = kTypicalS16;
  p.a.zero_point = 1;  // int16 is symmetric
  EXPECT_EQ(call(a, b, p, out), Error::InvalidArgument);
  EXPECT_EQ(call(a, narrow, kTypicalS16, out), Error::InvalidArgument);
  EXPECT_EQ(call(a, b, kTypicalS16, narrow), Error::InvalidArgument);
}

}  // namespace
