// Comparisons that fail on purpose: harness_failures_test checks how the harness reports a
// value mismatch, an integer mismatch and a shape mismatch.
#include "kernels/testing/harness.h"

namespace {

using namespace etarm::kernels::testing;

TEST(Fails, FloatValues) {
  TestTensor got(ScalarType::Float, {2, 3}), want(ScalarType::Float, {2, 3});
  got.set<float>({1, 2, 3, 4, 5, 6});
  want.set<float>({1, 2, 3, 4.5f, 5, 7});
  EXPECT_TENSOR_CLOSE(got, want, 0.1, 0);
}

TEST(Fails, IntegersExactly) {
  TestTensor got(ScalarType::Char, {4}), want(ScalarType::Char, {4});
  got.set<int8_t>({1, 2, 3, 4});
  want.set<int8_t>({1, 2, 3, 5});
  EXPECT_TENSOR_EQ(got, want);
}

TEST(Fails, Shape) {
  TestTensor got(ScalarType::Float, {2, 3}), want(ScalarType::Float, {3, 2});
  EXPECT_TENSOR_EQ(got, want);
}

}  // namespace
