// aten::mul.out: out = self * other, float, with broadcasting.
#include <cmath>

#include "kernels/testing/harness.h"

namespace {

using namespace etarm::kernels::testing;

// Random inputs of two shapes; the output has the broadcast shape `out_shape`.
void check_mul(std::vector<int32_t> a_shape, std::vector<int32_t> b_shape, std::vector<int32_t> out_shape) {
  TestTensor a(ScalarType::Float, a_shape), b(ScalarType::Float, b_shape), out(ScalarType::Float, out_shape);
  fill_uniform(a, 11, -3, 3);
  fill_uniform(b, 12, -3, 3);
  ASSERT_EQ(KernelCall("aten::mul.out").tensor(a).tensor(b).out(out).run(), Error::Ok);
  TestTensor want(ScalarType::Float, out_shape);
  compute(want, [&](const Index& i) { return static_cast<float>(broadcast_value(a, i)) * static_cast<float>(broadcast_value(b, i)); });
  EXPECT_TENSOR_CLOSE(out, want, 0, 0);  // one float multiplication: exact
}

TEST(Mul, SameShapeRank4) {
  check_mul({2, 3, 2, 2}, {2, 3, 2, 2}, {2, 3, 2, 2});
}

TEST(Mul, RowTimesColumn) {
  check_mul({1, 4}, {3, 1}, {3, 4});
}

TEST(Mul, LowerRankOperandFirst) {
  check_mul({5}, {2, 3, 5}, {2, 3, 5});
}

TEST(Mul, SpecialValues) {
  TestTensor a(ScalarType::Float, {4}), b(ScalarType::Float, {4}), out(ScalarType::Float, {4});
  a.set<float>({INFINITY, -2.0f, NAN, 0.0f});
  b.set<float>({0.0f, INFINITY, 1.0f, -1.0f});
  ASSERT_EQ(KernelCall("aten::mul.out").tensor(a).tensor(b).out(out).run(), Error::Ok);
  TestTensor want(ScalarType::Float, {4});
  want.set<float>({NAN, -INFINITY, NAN, -0.0f});
  EXPECT_TENSOR_EQ(out, want);
  EXPECT_TRUE(std::signbit(out.data<float>()[3]));
}

TEST(Mul, RejectsDoubleTensors) {
  TestTensor a(ScalarType::Double, {2}), b(ScalarType::Double, {2}), out(ScalarType::Double, {2});
  EXPECT_EQ(KernelCall("aten::mul.out").tensor(a).tensor(b).out(out).run(), Error::InvalidArgument);
}

TEST(Mul, RejectsAnOutputOfAnotherRank) {
  TestTensor a(ScalarType::Float, {2, 2}), b(ScalarType::Float, {2, 2}), out(ScalarType::Float, {4});
  EXPECT_EQ(KernelCall("aten::mul.out").tensor(a).tensor(b).out(out).run(), Error::InvalidArgument);
}

}  // namespace
