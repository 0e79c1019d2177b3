// aten::mm.out: out = self @ mat2 for 2-D float matrices.
#include "kernels/testing/harness.h"

namespace {

using namespace etarm::kernels::testing;

// out[i][j] = sum_p a[i][p] * b[p][j], accumulated in double.
void matmul_reference(const TestTensor& a, const TestTensor& b, TestTensor& want) {
  compute(want, [&](const Index& i) {
    double sum = 0;
    for (int32_t p = 0; p < a.sizes()[1]; ++p) sum += value_at(a, a.make_index({i[0], p})) * value_at(b, b.make_index({p, i[1]}));
    return sum;
  });
}

void check_mm(int32_t m, int32_t k, int32_t n) {
  SCOPED_TRACE("(%d x %d) @ (%d x %d)", static_cast<int>(m), static_cast<int>(k), static_cast<int>(k),
               static_cast<int>(n));
  TestTensor a(ScalarType::Float, {m, k}), b(ScalarType::Float, {k, n});
  TestTensor out(ScalarType::Float, {m, n}), want(ScalarType::Float, {m, n});
  fill_uniform(a, 31, -2, 2);
  fill_uniform(b, 32, -2, 2);
  ASSERT_EQ(KernelCall("aten::mm.out").tensor(a).tensor(b).out(out).run(), Error::Ok);
  matmul_reference(a, b, want);
  EXPECT_TENSOR_CLOSE(out, want, 1e-5, 1e-5);
}

TEST(Mm, Rectangular) {
  check_mm(3, 4, 5);
}

TEST(Mm, VectorShapes) {
  check_mm(1, 16, 1);
  check_mm(7, 1, 3);
}

// No inner dimension: a sum of nothing is 0.
TEST(Mm, EmptyInnerDimension) {
  TestTensor a(ScalarType::Float, {2, 0}), b(ScalarType::Float, {0, 3}), out(ScalarType::Float, {2, 3});
  fill_uniform(out, 33, 5, 6);  // stale values the kernel must overwrite
  ASSERT_EQ(KernelCall("aten::mm.out").tensor(a).tensor(b).out(out).run(), Error::Ok);
  TestTensor zeros(ScalarType::Float, {2, 3});
  EXPECT_TENSOR_EQ(out, zeros);
}

TEST(Mm, RejectsMismatchedInnerDimensions) {
  TestTensor a(ScalarType::Float, {2, 3}), b(ScalarType::Float, {4, 2}), out(ScalarType::Float, {2, 2});
  EXPECT_EQ(KernelCall("aten::mm.out").tensor(a).tensor(b).out(out).run(), Error::InvalidArgument);
}

TEST(Mm, RejectsBatchedInputs) {
  TestTensor a(ScalarType::Float, {2, 2, 3}), b(ScalarType::Float, {3, 2}), out(ScalarType::Float, {2, 2});
  EXPECT_EQ(KernelCall("aten::mm.out").tensor(a).tensor(b).out(out).run(), Error::InvalidArgument);
}

}  // namespace
