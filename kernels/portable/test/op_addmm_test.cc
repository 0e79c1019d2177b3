// aten::addmm.out: out = beta * self + alpha * (mat1 @ mat2); self broadcasts to the
// product's shape; beta = 0 ignores self (even NaN in it).
#include <cmath>

#include "kernels/testing/harness.h"

namespace {

using namespace etarm::kernels::testing;

struct Addmm {
  std::vector<int32_t> self_shape;
  int32_t m, k, n;
  double beta, alpha;
};

void check_addmm(const Addmm& c) {
  SCOPED_TRACE("self rank %d, (%d x %d) @ (%d x %d), beta %g, alpha %g", static_cast<int>(c.self_shape.size()),
               static_cast<int>(c.m), static_cast<int>(c.k), static_cast<int>(c.k), static_cast<int>(c.n), c.beta, c.alpha);
  TestTensor self(ScalarType::Float, c.self_shape), a(ScalarType::Float, {c.m, c.k}), b(ScalarType::Float, {c.k, c.n});
  TestTensor out(ScalarType::Float, {c.m, c.n}), want(ScalarType::Float, {c.m, c.n});
  fill_uniform(self, 41, -1, 1);
  fill_uniform(a, 42, -2, 2);
  fill_uniform(b, 43, -2, 2);
  ASSERT_EQ(KernelCall("aten::addmm.out").tensor(self).tensor(a).tensor(b).real(c.beta).real(c.alpha).out(out).run(),
            Error::Ok);
  compute(want, [&](const Index& i) {
    double product = 0;
    for (int32_t p = 0; p < c.k; ++p) product += value_at(a, a.make_index({i[0], p})) * value_at(b, b.make_index({p, i[1]}));
    return c.beta * broadcast_value(self, i) + c.alpha * product;
  });
  EXPECT_TENSOR_CLOSE(out, want, 1e-5, 1e-5);
}

TEST(Addmm, BiasRowAsInALinearLayer) {
  check_addmm({{5}, 3, 4, 5, 1.0, 1.0});
}

TEST(Addmm, FullSelfAndScales) {
  check_addmm({{3, 5}, 3, 4, 5, 0.5, -2.0});
}

TEST(Addmm, SelfBroadcastAlongEitherDimension) {
  check_addmm({{1, 6}, 2, 3, 6, 1.0, 1.0});
  check_addmm({{2, 1}, 2, 3, 6, 2.0, 1.0});
  check_addmm({{}, 2, 3, 6, 1.0, 0.25});
}

TEST(Addmm, BetaZeroIgnoresSelf) {
  TestTensor self(ScalarType::Float, {2}), a(ScalarType::Float, {1, 1}), b(ScalarType::Float, {1, 2});
  TestTensor out(ScalarType::Float, {1, 2}), want(ScalarType::Float, {1, 2});
  self.set<float>({NAN, INFINITY});
  a.set<float>({3});
  b.set<float>({1, -2});
  ASSERT_EQ(KernelCall("aten::addmm.out").tensor(self).tensor(a).tensor(b).integer(0).integer(2).out(out).run(),
            Error::Ok);
  want.set<float>({6, -12});
  EXPECT_TENSOR_EQ(out, want);
}

TEST(Addmm, RejectsSelfThatDoesNotBroadcast) {
  TestTensor self(ScalarType::Float, {3}), a(ScalarType::Float, {2, 2}), b(ScalarType::Float, {2, 4});
  TestTensor out(ScalarType::Float, {2, 4});
  EXPECT_EQ(KernelCall("aten::addmm.out").tensor(self).tensor(a).tensor(b).real(1).real(1).out(out).run(),
            Error::InvalidArgument);
}

}  // namespace
