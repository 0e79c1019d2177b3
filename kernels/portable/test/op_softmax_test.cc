// aten::_softmax.out: exp(x - max) / sum(exp(x - max)) along `dim`, float.
#include <cmath>

#include "kernels/testing/harness.h"

namespace {

using namespace etarm::kernels::testing;

void check_softmax(TestTensor& in, int64_t dim) {
  const int rank = in.dim();
  const int d = static_cast<int>(dim < 0 ? dim + rank : dim);
  SCOPED_TRACE("dim %d of %d", static_cast<int>(dim), rank);
  TestTensor out(ScalarType::Float, in.sizes()), want(ScalarType::Float, in.sizes());
  ASSERT_EQ(KernelCall("aten::_softmax.out").tensor(in).integer(dim).boolean(false).out(out).run(), Error::Ok);
  compute(want, [&](const Index& i) {
    if (rank == 0) return 1.0;
    Index j = i;
    double max = -INFINITY;
    for (j.at[d] = 0; j.at[d] < in.sizes()[d]; ++j.at[d]) max = std::fmax(max, value_at(in, j));
    double sum = 0;
    for (j.at[d] = 0; j.at[d] < in.sizes()[d]; ++j.at[d]) sum += std::exp(value_at(in, j) - max);
    return std::exp(value_at(in, i) - max) / sum;
  });
  EXPECT_TENSOR_CLOSE(out, want, 1e-6, 1e-5);
}

TEST(Softmax, LastDim) {
  TestTensor in(ScalarType::Float, {3, 10});
  fill_uniform(in, 131, -5, 5);
  check_softmax(in, 1);
}

TEST(Softmax, OuterDimAndNegativeDim) {
  TestTensor in(ScalarType::Float, {4, 3, 2});
  fill_uniform(in, 132, -5, 5);
  check_softmax(in, 0);
  check_softmax(in, -2);
}

// Large inputs: the max is subtracted first, so nothing overflows.
TEST(Softmax, LargeValuesStayFinite) {
  TestTensor in(ScalarType::Float, {1, 4});
  in.set<float>({1000.0f, 1001.0f, 999.0f, -1000.0f});
  check_softmax(in, -1);
}

TEST(Softmax, ScalarIsOne) {
  TestTensor in(ScalarType::Float, {});
  in.set<float>({-3.0f});
  check_softmax(in, 0);
}

TEST(Softmax, RejectsHalfToFloat) {
  TestTensor in(ScalarType::Float, {2, 2}), out(ScalarType::Float, {2, 2});
  EXPECT_EQ(KernelCall("aten::_softmax.out").tensor(in).integer(1).boolean(true).out(out).run(), Error::InvalidArgument);
}

TEST(Softmax, RejectsADimOutOfRange) {
  TestTensor in(ScalarType::Float, {2, 2}), out(ScalarType::Float, {2, 2});
  EXPECT_EQ(KernelCall("aten::_softmax.out").tensor(in).integer(2).boolean(false).out(out).run(), Error::InvalidArgument);
}

}  // namespace
