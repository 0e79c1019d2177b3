// cortex_m::quantized_minimum.out and quantized_maximum.out (written in the project: the CMSIS-NN
// snapshot has none) against a plain integer reference of TOSA's quantized MINIMUM/MAXIMUM: each
// operand RESCALEd (single rounding) into the output's steps, the extremum, the output's zero point.
// Bit-exact on every platform; with both operands at the output's parameters, the int8 extremum. int16 (a16w8):
// zero points 0, saturation to [-32767, 32767].
#include <cstdint>

#include "kernels/cortex_m/test/requantize_reference.h"
#include "kernels/testing/harness.h"

namespace {

using namespace etarm::kernels::testing;

struct Extremum {
  Params a, b;
  int64_t out_zero_point;
};

// An operand's scale over the output's as a multiplier in [2^30, 2^31) and a shift up to 29 (any scale).
Extremum extremum_of(double scale_a, int64_t zp_a, double scale_b, int64_t zp_b, double scale_out, int64_t zp_out) {
  return {params(zp_a, scale_a / scale_out), params(zp_b, scale_b / scale_out), zp_out};
}

// Both operands at the output's parameters: scale 1 is multiplier 2^30, shift 1.
Extremum shared(int64_t zero_point) {
  return {{zero_point, int64_t{1} << 30, 1}, {zero_point, int64_t{1} << 30, 1}, zero_point};
}

Error call(const char* op, TestTensor& a, TestTensor& b, const Extremum& p, TestTensor& out) {
  return KernelCall(op)
      .tensor(a).integer(p.a.zero_point).integer(p.a.multiplier).integer(p.a.shift)
      .tensor(b).integer(p.b.zero_point).integer(p.b.multiplier).integer(p.b.shift)
      .integer(p.out_zero_point).out(out).run();
}

void check(bool largest, TestTensor& a, TestTensor& b, const Extremum& p, std::vector<int32_t> out_sizes) {
  const char* op = largest ? "cortex_m::quantized_maximum.out" : "cortex_m::quantized_minimum.out";
  TestTensor out(a.dtype(), out_sizes), want(a.dtype(), out_sizes);
  ASSERT_EQ(call(op, a, b, p, out), Error::Ok);
  compute(want, [&](const Index& i) {
    const int64_t u = rescale(static_cast<int64_t>(broadcast_value(a, i)) - p.a.zero_point, p.a);
    const int64_t v = rescale(static_cast<int64_t>(broadcast_value(b, i)) - p.b.zero_point, p.b);
    const int64_t q = (largest ? (u > v ? u : v) : (u < v ? u : v)) + p.out_zero_point;
    return static_cast<double>(a.dtype() == ScalarType::Short ? clamp_int16(q) : clamp_int8(q));
  });
  EXPECT_TENSOR_EQ(out, want);
}

TEST(QuantizedMinimumMaximum, SharedParametersCompareTheIntegers) {
  TestTensor a(ScalarType::Char, {37}), b(ScalarType::Char, {37});
  fill_uniform(a, 1, -128, 127);
  fill_uniform(b, 2, -128, 127);
  for (bool largest : {false, true}) {
    check(largest, a, b, shared(-7), {37});
  }
  TestTensor out(ScalarType::Char, {3}), want(ScalarType::Char, {3}), x(ScalarType::Char, {3}), y(ScalarType::Char, {3});
  x.set<int8_t>({-128, 5, 127});
  y.set<int8_t>({127, -6, 127});
  ASSERT_EQ(call("cortex_m::quantized_maximum.out", x, y, shared(3), out), Error::Ok);
  want.set<int8_t>({127, 5, 127});
  EXPECT_TENSOR_EQ(out, want);
  ASSERT_EQ(call("cortex_m::quantized_minimum.out", x, y, shared(3), out), Error::Ok);
  want.set<int8_t>({-128, -6, 127});
  EXPECT_TENSOR_EQ(out, want);
}

TEST(QuantizedMinimumMaximum, RequantizesDifferentParametersIntoTheOutput) {
  TestTensor a(ScalarType::Char, {2, 3, 4, 5}), b(ScalarType::Char, {2, 3, 4, 5});
  fill_uniform(a, 3, -128, 127);
  fill_uniform(b, 4, -128, 127);
  for (bool largest : {false, true}) {
    check(largest, a, b, extremum_of(0.02, -3, 0.015, 7, 0.03, -10), {2, 3, 4, 5});
    // Operand scales above the output's (left shifts), results beyond int8 clamp.
    check(largest, a, b, extremum_of(0.05, 100, 0.3, -128, 0.01, 0), {2, 3, 4, 5});
  }
}

TEST(QuantizedMinimumMaximum, RoundsHalfUp) {
  // Operand scale half the output's: q / 2 exactly, .5 rounds toward +inf (TOSA's single rounding).
  TestTensor a(ScalarType::Char, {4}), b(ScalarType::Char, {4}), out(ScalarType::Char, {4}), want(ScalarType::Char, {4});
  a.set<int8_t>({1, -1, 3, -3});
  b.set<int8_t>({-128, -128, -128, -128});
  ASSERT_EQ(call("cortex_m::quantized_maximum.out", a, b, extremum_of(0.1, 0, 0.1, 0, 0.2, 0), out), Error::Ok);
  want.set<int8_t>({1, 0, 2, -1});
  EXPECT_TENSOR_EQ(out, want);
}

TEST(QuantizedMinimumMaximum, Broadcasts) {
  TestTensor a(ScalarType::Char, {2, 3, 4}), row(ScalarType::Char, {4}), column(ScalarType::Char, {3, 1});
  TestTensor scalar(ScalarType::Char, {}), empty(ScalarType::Char, {0, 4});
  fill_uniform(a, 5, -128, 127);
  fill_uniform(row, 6, -128, 127);
  fill_uniform(column, 7, -128, 127);
  scalar.set<int8_t>({-9});
  const Extremum p = extremum_of(0.02, -3, 0.04, 7, 0.03, 1);
  for (bool largest : {false, true}) {
    check(largest, a, row, p, {2, 3, 4});
    check(largest, column, a, p, {2, 3, 4});
    check(largest, a, scalar, shared(0), {2, 3, 4});
    check(largest, empty, row, p, {0, 4});
  }
}

TEST(QuantizedMinimumMaximum, RejectsBadArguments) {
  const char* op = "cortex_m::quantized_minimum.out";
  TestTensor a(ScalarType::Char, {4}), b(ScalarType::Char, {3}), out(ScalarType::Char, {4});
  TestTensor f(ScalarType::Float, {4}), wide(ScalarType::Short, {4});
  const Extremum p = shared(0);
  EXPECT_EQ(call(op, a, b, p, out), Error::InvalidArgument);  // shapes do not broadcast
  EXPECT_EQ(call(op, f, a, p, out), Error::InvalidArgument);
  EXPECT_EQ(call(op, a, a, p, wide), Error::InvalidArgument);
  Extremum bad = p;
  bad.out_zero_point = 128;
  EXPECT_EQ(call(op, a, a, bad, out), Error::InvalidArgument);
  bad = p;
  bad.b.shift = 30;  // beyond TOSA RESCALE's range
  EXPECT_EQ(call(op, a, a, bad, out), Error::InvalidArgument);
  bad = p;
  bad.a.multiplier = -5;
  EXPECT_EQ(call(op, a, a, bad, out), Error::InvalidArgument);
  EXPECT_EQ(KernelCall(op).tensor(a).integer(0).integer(1 << 30).integer(1).tensor(a).out(out).run(),
            Error::InvalidArgument);  // too few arguments
}

// int16 activations (a16w8): shared parameters compare the values; different scales rescale and saturate.
TEST(QuantizedMinimumMaximumS16, SharedAndRequantizedBroadcasts) {
  TestTensor a(ScalarType::Short, {2, 3, 5}), b(ScalarType::Short, {5});
  fill_uniform(a, 11, -32767, 32767);
  fill_uniform(b, 12, -32767, 32767);
  for (bool largest : {false, true}) {
    check(largest, a, b, shared(0), {2, 3, 5});
    check(largest, a, b, extremum_of(2e-4, 0, 3e-4, 0, 2.5e-4, 0), {2, 3, 5});
    check(largest, a, b, extremum_of(2e-3, 0, 1e-4, 0, 1e-4, 0), {2, 3, 5});  // scales above 1 saturate
  }
  TestTensor out(ScalarType::Short, {2, 3, 5}), narrow(ScalarType::Char, {2, 3, 5});
  EXPECT_EQ(call("cortex_m::quantized_maximum.out", a, b, shared(3), out), Error::InvalidArgument);  // symmetric
  EXPECT_EQ(call("cortex_m::quantized_maximum.out", a, b, shared(0), narrow), Error::InvalidArgument);
}

}  // namespace
