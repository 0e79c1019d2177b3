// aten::add.out: out = self + alpha * other, float, with broadcasting.
#include "kernels/testing/harness.h"

namespace {

using namespace etarm::kernels::testing;

void check_add(std::vector<int32_t> a_shape, std::vector<int32_t> b_shape, std::vector<int32_t> out_shape,
               double alpha) {
  TestTensor a(ScalarType::Float, a_shape), b(ScalarType::Float, b_shape);
  TestTensor out(ScalarType::Float, out_shape), want(ScalarType::Float, out_shape);
  fill_uniform(a, 1, -4, 4);
  fill_uniform(b, 2, -4, 4);
  ASSERT_EQ(KernelCall("aten::add.out").tensor(a).tensor(b).real(alpha).out(out).run(), Error::Ok);
  compute(want, [&](const Index& i) {
    return static_cast<float>(broadcast_value(a, i)) + static_cast<float>(alpha) * static_cast<float>(broadcast_value(b, i));
  });
  EXPECT_TENSOR_CLOSE(out, want, 1e-6, 1e-6);
}

TEST(Add, SameShape) {
  check_add({2, 3, 5}, {2, 3, 5}, {2, 3, 5}, 1.0);
}

TEST(Add, Alpha) {
  check_add({7}, {7}, {7}, -2.5);
}

TEST(Add, BroadcastTrailingDims) {
  check_add({4, 3}, {3}, {4, 3}, 1.0);
}

TEST(Add, BroadcastBothInputs) {
  check_add({2, 1, 4}, {3, 1}, {2, 3, 4}, 0.5);
}

TEST(Add, ScalarTensor) {
  check_add({3, 2}, {}, {3, 2}, 1.0);
}

TEST(Add, Empty) {
  check_add({0, 3}, {0, 3}, {0, 3}, 1.0);
}

TEST(Add, IntegerAlphaArgument) {
  TestTensor a(ScalarType::Float, {3}), b(ScalarType::Float, {3}), out(ScalarType::Float, {3});
  a.set<float>({1, 2, 3});
  b.set<float>({10, 20, 30});
  ASSERT_EQ(KernelCall("aten::add.out").tensor(a).tensor(b).integer(2).out(out).run(), Error::Ok);
  TestTensor want(ScalarType::Float, {3});
  want.set<float>({21, 42, 63});
  EXPECT_TENSOR_EQ(out, want);
}

TEST(Add, RejectsShapesThatDoNotBroadcast) {
  TestTensor a(ScalarType::Float, {2, 3}), b(ScalarType::Float, {2}), out(ScalarType::Float, {2, 3});
  EXPECT_EQ(KernelCall("aten::add.out").tensor(a).tensor(b).real(1.0).out(out).run(), Error::InvalidArgument);
}

TEST(Add, RejectsIntegerTensors) {
  TestTensor a(ScalarType::Int, {2}), b(ScalarType::Int, {2}), out(ScalarType::Int, {2});
  EXPECT_EQ(KernelCall("aten::add.out").tensor(a).tensor(b).real(1.0).out(out).run(), Error::InvalidArgument);
}

}  // namespace
