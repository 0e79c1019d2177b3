// cortex_m::quantized_sub.out against a plain integer reference of TOSA's quantized SUB: each operand RESCALEd
// (single rounding) to int32 after a left shift of 20 (int16: 15), an int32 SUB, a RESCALE into the output.
#include <cmath>
#include <cstdint>

#include "kernels/cortex_m/test/requantize_reference.h"
#include "kernels/testing/harness.h"

namespace {

using namespace etarm::kernels::testing;

constexpr const char* kOp = "cortex_m::quantized_sub.out";

using Sub = Additive;

Error call(TestTensor& a, TestTensor& b, const Sub& p, TestTensor& out) {
  return KernelCall(kOp)
      .tensor(a).integer(p.a.zero_point).integer(p.a.multiplier).integer(p.a.shift)
      .tensor(b).integer(p.b.zero_point).integer(p.b.multiplier).integer(p.b.shift)
      .integer(p.out.zero_point).integer(p.out.multiplier).integer(p.out.shift)
      .out(out).run();
}

void check_sub(TestTensor& a, TestTensor& b, const Sub& p, std::vector<int32_t> out_sizes) {
  const bool s16 = a.dtype() == ScalarType::Short;
  const int left_shift = s16 ? 15 : 20;
  TestTensor out(a.dtype(), out_sizes), want(a.dtype(), out_sizes);
  ASSERT_EQ(call(a, b, p, out), Error::Ok);
  compute(want, [&](const Index& i) {
    const auto x = static_cast<int64_t>(broadcast_value(a, i));
    const auto y = static_cast<int64_t>(broadcast_value(b, i));
    const int64_t difference =
        rescale((x - p.a.zero_point) << left_shift, p.a) - rescale((y - p.b.zero_point) << left_shift, p.b);
    const int64_t q = rescale(difference, p.out) + p.out.zero_point;
    return static_cast<double>(s16 ? clamp_int16(q) : clamp_int8(q));
  });
  EXPECT_TENSOR_EQ(out, want);
}

TEST(QuantizedSub, RandomInt8WithDifferentScales) {
  TestTensor a(ScalarType::Char, {2, 3, 7}), b(ScalarType::Char, {2, 3, 7});
  fill_uniform(a, 11, -128, 127);
  fill_uniform(b, 12, -128, 127);
  check_sub(a, b, additive(0.02, -3, 0.015, 7, 0.03, -10), {2, 3, 7});
  check_sub(a, b, additive(0.5, 0, 0.001, -128, 0.25, 127), {2, 3, 7});
  check_sub(b, a, additive(1e-4, 12, 0.05, 0, 0.05, 0), {2, 3, 7});
}

TEST(QuantizedSub, Int16) {
  TestTensor a(ScalarType::Short, {5, 9}), b(ScalarType::Short, {9});
  fill_uniform(a, 13, -32767, 32767);
  fill_uniform(b, 14, -32767, 32767);
  check_sub(a, b, additive(3e-4, 0, 1e-4, 0, 2e-4, 0, 15), {5, 9});
  check_sub(b, a, additive(1e-5, 0, 4e-5, 0, 1e-4, 0, 15), {5, 9});
}

TEST(QuantizedSub, BroadcastsAndSaturates) {
  TestTensor a(ScalarType::Char, {3, 1}), b(ScalarType::Char, {1, 4});
  a.set<int8_t>({-128, 0, 127});
  b.set<int8_t>({127, 0, -128, 5});
  const Sub small_output = additive(0.1, 0, 0.1, 0, 0.05, 0);  // differences beyond the output's range clamp
  check_sub(a, b, small_output, {3, 4});
  TestTensor out(ScalarType::Char, {3, 4}), want(ScalarType::Char, {3, 4});
  ASSERT_EQ(call(a, b, small_output, out), Error::Ok);
  want.set<int8_t>({-128, -128, 0, -128, -128, 0, 127, -10, 0, 127, 127, 127});
  EXPECT_TENSOR_EQ(out, want);
}

TEST(QuantizedSub, RoundsHalfUp) {
  // Equal scales, output scale twice theirs: (x - y) / 2 exactly; .5 rounds toward +inf.
  TestTensor a(ScalarType::Char, {4}), b(ScalarType::Char, {4}), out(ScalarType::Char, {4});
  TestTensor want(ScalarType::Char, {4});
  a.set<int8_t>({1, 0, 3, 0});
  b.set<int8_t>({0, 1, 0, 3});
  ASSERT_EQ(call(a, b, additive(0.1, 0, 0.1, 0, 0.2, 0), out), Error::Ok);
  want.set<int8_t>({1, 0, 2, -1});
  EXPECT_TENSOR_EQ(out, want);
}

TEST(QuantizedSub, RejectsBadArguments) {
  TestTensor a(ScalarType::Char, {4}), b(ScalarType::Char, {4}), out(ScalarType::Char, {4});
  TestTensor wide(ScalarType::Short, {4}), other(ScalarType::Char, {3});
  const Sub p = additive(0.02, -3, 0.015, 7, 0.03, -10);
  EXPECT_EQ(call(a, wide, p, out), Error::InvalidArgument);  // mixed types
  EXPECT_EQ(call(a, other, p, out), Error::InvalidArgument);  // shapes that do not broadcast
  Sub negative = p;
  negative.b.multiplier = -negative.b.multiplier;
  EXPECT_EQ(call(a, b, negative, out), Error::InvalidArgument);
  Sub offset16 = additive(3e-4, 5, 1e-4, 0, 2e-4, 0, 15);  // int16 takes zero points 0 only
  TestTensor c(ScalarType::Short, {4}), d(ScalarType::Short, {4}), e(ScalarType::Short, {4});
  EXPECT_EQ(call(c, d, offset16, e), Error::InvalidArgument);
}

}  // namespace
