// cortex_m::quantized_mul.out against a plain integer reference of TOSA's quantized MUL: the int32
// product of the centred operands, one RESCALE (single rounding) by scale_a * scale_b / scale_out
// into the int8 output. Bit-exact on every CMSIS-NN code path (host: plain C; Corstone-300: MVE;
// M55 without MVE, M4, M33: DSP). int16 (a16w8): zero points 0, int16 saturation.
#include <cstdint>

#include "kernels/cortex_m/test/requantize_reference.h"
#include "kernels/testing/harness.h"

namespace {

using namespace etarm::kernels::testing;

constexpr const char* kOp = "cortex_m::quantized_mul.out";

struct Mul {
  int64_t zp_a, zp_b;
  Params out;
};

Mul mul_of(double scale_a, int64_t zp_a, double scale_b, int64_t zp_b, double scale_out, int64_t zp_out) {
  return {zp_a, zp_b, params(zp_out, scale_a * scale_b / scale_out)};
}

int64_t reference(int64_t x, int64_t y, const Mul& p, bool s16) {
  const int64_t q = rescale((x - p.zp_a) * (y - p.zp_b), p.out) + p.out.zero_point;
  return s16 ? clamp_int16(q) : clamp_int8(q);
}

Error call(TestTensor& a, TestTensor& b, const Mul& p, TestTensor& out) {
  return KernelCall(kOp)
      .tensor(a).integer(p.zp_a).tensor(b).integer(p.zp_b)
      .integer(p.out.zero_point).integer(p.out.multiplier).integer(p.out.shift)
      .out(out).run();
}

void check_mul(TestTensor& a, TestTensor& b, const Mul& p, std::vector<int32_t> out_sizes) {
  TestTensor out(a.dtype(), out_sizes), want(a.dtype(), out_sizes);
  ASSERT_EQ(call(a, b, p, out), Error::Ok);
  compute(want, [&](const Index& i) {
    const auto x = static_cast<int64_t>(broadcast_value(a, i));
    const auto y = static_cast<int64_t>(broadcast_value(b, i));
    return static_cast<double>(reference(x, y, p, a.dtype() == ScalarType::Short));
  });
  EXPECT_TENSOR_EQ(out, want);
}

const Mul kTypical = mul_of(0.02, -3, 0.015, 7, 0.004, -10);

TEST(QuantizedMul, SameShapeRandom) {
  // 37 elements: MVE's 4-lane tail and the DSP path's 4-at-a-time loop plus remainder.
  TestTensor a(ScalarType::Char, {37}), b(ScalarType::Char, {37});
  fill_uniform(a, 1, -128, 127);
  fill_uniform(b, 2, -128, 127);
  check_mul(a, b, kTypical, {37});
}

TEST(QuantizedMul, Rank4ExtremeZeroPointsAndScales) {
  TestTensor a(ScalarType::Char, {2, 3, 4, 5}), b(ScalarType::Char, {2, 3, 4, 5});
  fill_uniform(a, 3, -128, 127);
  fill_uniform(b, 4, -128, 127);
  // Products up to 255 * 255: the DSP path's 16-bit halves hold the centred operands.
  check_mul(a, b, mul_of(0.1, 127, 0.1, -128, 0.9, 0), {2, 3, 4, 5});
  check_mul(a, b, mul_of(1e-3, 0, 2e-3, 5, 0.5, 100), {2, 3, 4, 5});
}

TEST(QuantizedMul, SaturatesAtTheInt8Range) {
  TestTensor a(ScalarType::Char, {4}), b(ScalarType::Char, {4}), out(ScalarType::Char, {4});
  TestTensor want(ScalarType::Char, {4});
  a.set<int8_t>({100, 100, -100, 3});
  b.set<int8_t>({100, -100, -100, 5});
  ASSERT_EQ(call(a, b, mul_of(0.1, 0, 0.1, 0, 0.5, 0), out), Error::Ok);
  want.set<int8_t>({127, -128, 127, 0});  // 100, -100, 100, 0.15 -> 0.3 steps
  EXPECT_TENSOR_EQ(out, want);
}

TEST(QuantizedMul, RoundsHalfUp) {
  // Product scale / output scale = 1/2: x * y / 2 exactly, .5 rounds toward +inf (TOSA's single rounding).
  TestTensor a(ScalarType::Char, {4}), b(ScalarType::Char, {4}), out(ScalarType::Char, {4});
  TestTensor want(ScalarType::Char, {4});
  a.set<int8_t>({1, -1, 3, -3});
  b.set<int8_t>({1, 1, 1, 1});
  ASSERT_EQ(call(a, b, mul_of(0.5, 0, 0.5, 0, 0.5, 0), out), Error::Ok);
  want.set<int8_t>({1, 0, 2, -1});
  EXPECT_TENSOR_EQ(out, want);
}

TEST(QuantizedMul, BroadcastsTrailingAndLeadingDims) {
  TestTensor a(ScalarType::Char, {2, 3, 4}), row(ScalarType::Char, {4}), column(ScalarType::Char, {3, 1});
  fill_uniform(a, 5, -128, 127);
  fill_uniform(row, 6, -128, 127);
  fill_uniform(column, 7, -128, 127);
  check_mul(a, row, kTypical, {2, 3, 4});
  check_mul(row, a, kTypical, {2, 3, 4});
  check_mul(a, column, kTypical, {2, 3, 4});
  TestTensor left(ScalarType::Char, {2, 1, 5}), right(ScalarType::Char, {1, 3, 5});
  fill_uniform(left, 8, -128, 127);
  fill_uniform(right, 9, -128, 127);
  check_mul(left, right, kTypical, {2, 3, 5});
  TestTensor scalar(ScalarType::Char, {}), empty(ScalarType::Char, {0, 4});
  scalar.set<int8_t>({-77});
  check_mul(scalar, a, kTypical, {2, 3, 4});
  check_mul(empty, row, kTypical, {0, 4});
}

TEST(QuantizedMul, RejectsBadArguments) {
  TestTensor a(ScalarType::Char, {4}), b(ScalarType::Char, {3}), out(ScalarType::Char, {4});
  TestTensor f(ScalarType::Float, {4}), rank2(ScalarType::Char, {1, 4});
  EXPECT_EQ(call(a, b, kTypical, out), Error::InvalidArgument);  // shapes do not broadcast
  EXPECT_EQ(call(f, a, kTypical, out), Error::InvalidArgument);
  EXPECT_EQ(call(a, a, kTypical, rank2), Error::InvalidArgument);  // output rank differs
  Mul p = kTypical;
  p.zp_b = -129;
  EXPECT_EQ(call(a, a, p, out), Error::InvalidArgument);
  p = kTypical;
  p.out.shift = 1;  // a scale of 1 or more
  EXPECT_EQ(call(a, a, p, out), Error::InvalidArgument);
  p = kTypical;
  p.out.multiplier = 0;
  EXPECT_EQ(call(a, a, p, out), Error::InvalidArgument);
  EXPECT_EQ(KernelCall(kOp).tensor(a).integer(0).tensor(a).out(out).run(), Error::InvalidArgument);  // too few
}

// int16 activations (a16w8): symmetric, so every zero point is 0 and the values in [-32767, 32767] (the quantizer's
// and the kernels' range: -32768 squared overflows MVE's doubling multiply).
TEST(QuantizedMulS16, RandomBroadcastSaturationAndRounding) {
  // 37 elements: MVE's 4-lane tail, the DSP path's pairs (SMULBB/SMULTT) plus one; products up to 2^30.
  TestTensor a(ScalarType::Short, {37}), b(ScalarType::Short, {37});
  fill_uniform(a, 21, -32767, 32767);
  fill_uniform(b, 22, -32767, 32767);
  check_mul(a, b, mul_of(3e-4, 0, 2e-4, 0, 2e-3, 0), {37});
  check_mul(a, b, mul_of(3e-4, 0, 2e-4, 0, 2e-5, 0), {37});  // most saturate
  TestTensor m(ScalarType::Short, {2, 3, 4}), column(ScalarType::Short, {3, 1});
  fill_uniform(m, 23, -32767, 32767);
  fill_uniform(column, 24, -32767, 32767);
  check_mul(m, column, mul_of(1e-3, 0, 1e-3, 0, 0.05, 0), {2, 3, 4});
  TestTensor x(ScalarType::Short, {4}), one(ScalarType::Short, {4}), out(ScalarType::Short, {4});
  TestTensor want(ScalarType::Short, {4});
  x.set<int16_t>({1, -1, 3, -32767});
  one.set<int16_t>({1, 1, 1, -32767});
  ASSERT_EQ(call(x, one, mul_of(0.1, 0, 0.1, 0, 0.02, 0), out), Error::Ok);
  want.set<int16_t>({1, 0, 2, 32767});  // x * y / 2, .5 toward +inf; 32767^2 / 2 saturates
  EXPECT_TENSOR_EQ(out, want);
}

TEST(QuantizedMulS16, RejectsZeroPointsAndMixedTypes) {
  TestTensor a(ScalarType::Short, {4}), b(ScalarType::Short, {4}), out(ScalarType::Short, {4});
  TestTensor narrow(ScalarType::Char, {4});
  const Mul p = mul_of(1e-3, 0, 1e-3, 0, 0.05, 0);
  EXPECT_EQ(call(a, b, p, out), Error::Ok);
  EXPECT_EQ(call(a, b, mul_of(1e-3, 2, 1e-3, 0, 0.05, 0), out), Error::InvalidArgument);  // int16 is symmetric
  EXPECT_EQ(call(a, b, mul_of(1e-3, 0, 1e-3, 0, 0.05, 3), out), Error::InvalidArgument);
  EXPECT_EQ(call(a, narrow, p, out), Error::InvalidArgument);
  EXPECT_EQ(call(a, b, p, narrow), Error::InvalidArgument);
}

}  // namespace
