// aten::relu.out: max(x, 0) elementwise on float tensors; NaN stays NaN (as in torch).
#include <cmath>

#include "kernels/testing/harness.h"

namespace {

using namespace etarm::kernels::testing;

TEST(Relu, RandomRank3) {
  TestTensor in(ScalarType::Float, {3, 4, 5}), out(ScalarType::Float, {3, 4, 5}), want(ScalarType::Float, {3, 4, 5});
  fill_uniform(in, 21, -1, 1);
  ASSERT_EQ(KernelCall("aten::relu.out").tensor(in).out(out).run(), Error::Ok);
  compute(want, [&](const Index& i) { return std::fmax(value_at(in, i), 0.0); });
  EXPECT_TENSOR_EQ(out, want);
}

TEST(Relu, SpecialValues) {
  TestTensor in(ScalarType::Float, {6}), out(ScalarType::Float, {6}), want(ScalarType::Float, {6});
  in.set<float>({NAN, INFINITY, -INFINITY, -0.0f, 1e-38f, -1e-38f});
  want.set<float>({NAN, INFINITY, 0.0f, -0.0f, 1e-38f, 0.0f});
  ASSERT_EQ(KernelCall("aten::relu.out").tensor(in).out(out).run(), Error::Ok);
  EXPECT_TENSOR_EQ(out, want);
}

// Elementwise over memory: any layout, as long as input and output share it.
TEST(Relu, ChannelsLast) {
  const std::vector<uint8_t> nhwc = {0, 2, 3, 1};
  TestTensor in(ScalarType::Float, {1, 3, 2, 2}, nhwc), out(ScalarType::Float, {1, 3, 2, 2}, nhwc);
  TestTensor want(ScalarType::Float, {1, 3, 2, 2});
  fill_uniform(in, 22, -1, 1);
  ASSERT_EQ(KernelCall("aten::relu.out").tensor(in).out(out).run(), Error::Ok);
  compute(want, [&](const Index& i) { return std::fmax(value_at(in, i), 0.0); });
  EXPECT_TENSOR_EQ(out, want);
}

TEST(Relu, Empty) {
  TestTensor in(ScalarType::Float, {2, 0}), out(ScalarType::Float, {2, 0});
  EXPECT_EQ(KernelCall("aten::relu.out").tensor(in).out(out).run(), Error::Ok);
}

TEST(Relu, RejectsDifferentLayouts) {
  TestTensor in(ScalarType::Float, {1, 2, 2, 2}), out(ScalarType::Float, {1, 2, 2, 2}, {0, 2, 3, 1});
  EXPECT_EQ(KernelCall("aten::relu.out").tensor(in).out(out).run(), Error::InvalidArgument);
}

TEST(Relu, RejectsIntegers) {
  TestTensor in(ScalarType::Char, {4}), out(ScalarType::Char, {4});
  EXPECT_EQ(KernelCall("aten::relu.out").tensor(in).out(out).run(), Error::InvalidArgument);
}

}  // namespace
