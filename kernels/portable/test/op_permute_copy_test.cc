// aten::permute_copy.out: out[i_0, ..., i_n] = self[i at dims^-1] (any dtype).
#include "kernels/testing/harness.h"

namespace {

using namespace etarm::kernels::testing;

// out dim k is input dim dims[k] (dims possibly negative).
void check_permute(ScalarType dtype, std::vector<int32_t> shape, std::vector<int64_t> dims) {
  const int rank = static_cast<int>(shape.size());
  std::vector<int32_t> out_shape(rank);
  std::vector<int> source(rank);
  for (int k = 0; k < rank; ++k) {
    source[k] = static_cast<int>(dims[k] < 0 ? dims[k] + rank : dims[k]);
    out_shape[k] = shape[source[k]];
  }
  TestTensor in(dtype, shape), out(dtype, out_shape), want(dtype, out_shape);
  fill_uniform(in, 121, -100, 100);
  ASSERT_EQ(KernelCall("aten::permute_copy.out").tensor(in).ints(dims).out(out).run(), Error::Ok);
  compute(want, [&](const Index& o) {
    Index i{};
    i.rank = rank;
    for (int k = 0; k < rank; ++k) i.at[source[k]] = o[k];
    return value_at(in, i);
  });
  EXPECT_TENSOR_EQ(out, want);
}

TEST(PermuteCopy, Transpose) {
  check_permute(ScalarType::Float, {3, 5}, {1, 0});
}

TEST(PermuteCopy, NchwToNhwc) {
  check_permute(ScalarType::Float, {2, 3, 4, 5}, {0, 2, 3, 1});
}

TEST(PermuteCopy, NegativeDimsInt8Rank5) {
  check_permute(ScalarType::Char, {2, 1, 3, 2, 2}, {-1, 0, -3, 1, 3});
}

TEST(PermuteCopy, IdentityAndScalar) {
  check_permute(ScalarType::Int, {4, 2}, {0, 1});
  check_permute(ScalarType::Float, {}, {});
}

TEST(PermuteCopy, RejectsDimsThatAreNotAPermutation) {
  TestTensor in(ScalarType::Float, {2, 3}), out(ScalarType::Float, {2, 3});
  EXPECT_EQ(KernelCall("aten::permute_copy.out").tensor(in).ints({0, 0}).out(out).run(), Error::InvalidArgument);
  EXPECT_EQ(KernelCall("aten::permute_copy.out").tensor(in).ints({0}).out(out).run(), Error::InvalidArgument);
}

}  // namespace
