// aten::cat.out: tensors joined along `dim` (any dtype: bytes are copied); 1-D empty
// tensors are skipped whatever their shape, as in torch.
#include "kernels/testing/harness.h"

namespace {

using namespace etarm::kernels::testing;

// The reference: the input that holds output index i along `dim`, at the shifted index.
double cat_value(const std::vector<TestTensor*>& inputs, int dim, const Index& i) {
  Index at = i;
  for (const TestTensor* t : inputs) {
    if (t->dim() == 1 && t->numel() == 0) continue;
    if (at.at[dim] < t->sizes()[dim]) return value_at(*t, at);
    at.at[dim] -= t->sizes()[dim];
  }
  ADD_FAILURE("index past the inputs");
  return 0;
}

TEST(Cat, TwoAlongDim0) {
  TestTensor a(ScalarType::Float, {2, 3}), b(ScalarType::Float, {4, 3}), out(ScalarType::Float, {6, 3});
  fill_uniform(a, 51, -5, 5);
  fill_uniform(b, 52, -5, 5);
  ASSERT_EQ(KernelCall("aten::cat.out").tensors({&a, &b}).integer(0).out(out).run(), Error::Ok);
  TestTensor want(ScalarType::Float, {6, 3});
  compute(want, [&](const Index& i) { return cat_value({&a, &b}, 0, i); });
  EXPECT_TENSOR_EQ(out, want);
}

TEST(Cat, ThreeInt8AlongAMiddleDimNegative) {
  TestTensor a(ScalarType::Char, {2, 1, 3}), b(ScalarType::Char, {2, 2, 3}), c(ScalarType::Char, {2, 3, 3});
  TestTensor out(ScalarType::Char, {2, 6, 3}), want(ScalarType::Char, {2, 6, 3});
  fill_uniform(a, 53, -128, 127);
  fill_uniform(b, 54, -128, 127);
  fill_uniform(c, 55, -128, 127);
  ASSERT_EQ(KernelCall("aten::cat.out").tensors({&a, &b, &c}).integer(-2).out(out).run(), Error::Ok);
  compute(want, [&](const Index& i) { return cat_value({&a, &b, &c}, 1, i); });
  EXPECT_TENSOR_EQ(out, want);
}

TEST(Cat, LastDimInt64) {
  TestTensor a(ScalarType::Long, {3, 2}), b(ScalarType::Long, {3, 1}), out(ScalarType::Long, {3, 3});
  a.set<int64_t>({1, 2, 4, 5, 7, 8});
  b.set<int64_t>({int64_t{1} << 40, -3, 9});
  ASSERT_EQ(KernelCall("aten::cat.out").tensors({&a, &b}).integer(1).out(out).run(), Error::Ok);
  TestTensor want(ScalarType::Long, {3, 3});
  want.set<int64_t>({1, 2, int64_t{1} << 40, 4, 5, -3, 7, 8, 9});
  EXPECT_TENSOR_EQ(out, want);
}

TEST(Cat, SkipsEmptyOneDimensionalTensors) {
  TestTensor empty(ScalarType::Float, {0}), a(ScalarType::Float, {2, 2}), out(ScalarType::Float, {4, 2});
  TestTensor b(ScalarType::Float, {2, 2});
  fill_uniform(a, 56, 0, 1);
  fill_uniform(b, 57, 0, 1);
  ASSERT_EQ(KernelCall("aten::cat.out").tensors({&empty, &a, &empty, &b}).integer(0).out(out).run(), Error::Ok);
  TestTensor want(ScalarType::Float, {4, 2});
  compute(want, [&](const Index& i) { return cat_value({&a, &b}, 0, i); });
  EXPECT_TENSOR_EQ(out, want);
}

TEST(Cat, RejectsSizesThatDifferOutsideDim) {
  TestTensor a(ScalarType::Float, {2, 3}), b(ScalarType::Float, {2, 4}), out(ScalarType::Float, {4, 3});
  EXPECT_EQ(KernelCall("aten::cat.out").tensors({&a, &b}).integer(0).out(out).run(), Error::InvalidArgument);
}

TEST(Cat, RejectsMixedDtypes) {
  TestTensor a(ScalarType::Float, {1, 2}), b(ScalarType::Int, {1, 2}), out(ScalarType::Float, {2, 2});
  EXPECT_EQ(KernelCall("aten::cat.out").tensors({&a, &b}).integer(0).out(out).run(), Error::InvalidArgument);
}

}  // namespace
