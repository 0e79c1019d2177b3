// aten::view_copy.out: the same elements in row-major order under a new shape (one size may
// be -1: inferred), any dtype.
#include "kernels/testing/harness.h"

namespace {

using namespace etarm::kernels::testing;

void check_view(ScalarType dtype, std::vector<int32_t> shape, std::vector<int64_t> size, std::vector<int32_t> out_shape) {
  TestTensor in(dtype, shape), out(dtype, out_shape), want(dtype, out_shape);
  fill_uniform(in, 141, -1000, 1000);
  ASSERT_EQ(KernelCall("aten::view_copy.out").tensor(in).ints(size).out(out).run(), Error::Ok);
  // Element k of the input, in row-major order, is element k of the output.
  std::vector<double> values;
  for_each_index(in, [&](const Index& i) { values.push_back(value_at(in, i)); });
  size_t k = 0;
  compute(want, [&](const Index&) { return values[k++]; });
  EXPECT_TENSOR_EQ(out, want);
}

TEST(ViewCopy, Flatten) {
  check_view(ScalarType::Float, {2, 3, 4}, {6, 4}, {6, 4});
}

TEST(ViewCopy, InferredSize) {
  check_view(ScalarType::Float, {2, 3, 4}, {4, -1}, {4, 6});
  check_view(ScalarType::Short, {12}, {-1, 2, 3}, {2, 2, 3});
}

TEST(ViewCopy, ToAndFromAScalar) {
  check_view(ScalarType::Int, {1, 1}, {}, {});
  check_view(ScalarType::Int, {}, {1, 1, 1}, {1, 1, 1});
}

TEST(ViewCopy, Empty) {
  check_view(ScalarType::Float, {0, 4}, {2, 0, 4}, {2, 0, 4});
}

// Any size would do for the -1 of an empty tensor: torch refuses it, and so does the kernel.
TEST(ViewCopy, RejectsInferringFromNoElements) {
  TestTensor in(ScalarType::Float, {0, 4}), out(ScalarType::Float, {2, 0, 4});
  EXPECT_EQ(KernelCall("aten::view_copy.out").tensor(in).ints({2, 0, -1}).out(out).run(), Error::InvalidArgument);
}

TEST(ViewCopy, RejectsAnotherElementCount) {
  TestTensor in(ScalarType::Float, {2, 3}), out(ScalarType::Float, {7});
  EXPECT_EQ(KernelCall("aten::view_copy.out").tensor(in).ints({7}).out(out).run(), Error::InvalidArgument);
}

TEST(ViewCopy, RejectsTwoInferredSizes) {
  TestTensor in(ScalarType::Float, {2, 3}), out(ScalarType::Float, {2, 3});
  EXPECT_EQ(KernelCall("aten::view_copy.out").tensor(in).ints({-1, -1}).out(out).run(), Error::InvalidArgument);
}

}  // namespace
