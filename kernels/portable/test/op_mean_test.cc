// aten::mean.out: the mean over a list of dims (none or empty: all), keepdim or not, float.
#include <cmath>

#include "kernels/testing/harness.h"

namespace {

using namespace etarm::kernels::testing;

// Reduces a random tensor of `shape` over `dims` (already non-negative for the reference).
void check_mean(std::vector<int32_t> shape, std::vector<int64_t> dims_arg, std::vector<int> dims, bool keepdim,
                std::vector<int32_t> out_shape) {
  SCOPED_TRACE("%d dims reduced over %d, keepdim %d", static_cast<int>(shape.size()), static_cast<int>(dims.size()),
               keepdim);
  TestTensor in(ScalarType::Float, shape), out(ScalarType::Float, out_shape), want(ScalarType::Float, out_shape);
  fill_uniform(in, 111, -3, 3);
  std::vector<bool> reduced(shape.size(), false);
  for (int d : dims) reduced[d] = true;
  KernelCall call("aten::mean.out");
  call.tensor(in);
  if (dims_arg.empty()) {
    call.none();
  } else {
    call.ints(dims_arg);
  }
  ASSERT_EQ(call.boolean(keepdim).none().out(out).run(), Error::Ok);
  // Sum every input element into the output index it reduces to.
  std::vector<double> sums(want.numel(), 0.0);
  std::vector<int> counts(want.numel(), 0);
  for_each_index(in, [&](const Index& i) {
    size_t flat = 0;
    for (size_t d = 0, od = 0; d < shape.size(); ++d) {
      if (reduced[d] && !keepdim) continue;
      flat = flat * out_shape[od++] + (reduced[d] ? 0 : i[d]);
    }
    sums[flat] += value_at(in, i);
    ++counts[flat];
  });
  size_t flat = 0;
  compute(want, [&](const Index&) {
    const size_t k = flat++;
    return sums[k] / counts[k];
  });
  EXPECT_TENSOR_CLOSE(out, want, 1e-6, 1e-5);
}

TEST(Mean, OneDim) {
  check_mean({2, 3, 4}, {1}, {1}, false, {2, 4});
}

TEST(Mean, TwoDimsKeepdim) {
  check_mean({2, 3, 4}, {0, 2}, {0, 2}, true, {1, 3, 1});
}

TEST(Mean, SpatialMeanOfAFeatureMap) {
  check_mean({1, 8, 5, 5}, {-1, -2}, {3, 2}, true, {1, 8, 1, 1});
}

TEST(Mean, AllDimsWithoutAList) {
  check_mean({3, 4}, {}, {0, 1}, false, {});
}

TEST(Mean, EmptyReductionIsNaN) {
  TestTensor in(ScalarType::Float, {2, 0}), out(ScalarType::Float, {2});
  ASSERT_EQ(KernelCall("aten::mean.out").tensor(in).ints({1}).boolean(false).none().out(out).run(), Error::Ok);
  EXPECT_TRUE(std::isnan(out.data<float>()[0]) && std::isnan(out.data<float>()[1]));
}

TEST(Mean, RejectsARepeatedDim) {
  TestTensor in(ScalarType::Float, {2, 3}), out(ScalarType::Float, {2});
  EXPECT_EQ(KernelCall("aten::mean.out").tensor(in).ints({1, -1}).boolean(false).none().out(out).run(),
            Error::InvalidArgument);
}

TEST(Mean, RejectsAnotherDtype) {
  TestTensor in(ScalarType::Float, {2, 3}), out(ScalarType::Float, {2});
  EXPECT_EQ(KernelCall("aten::mean.out").tensor(in).ints({1}).boolean(false).dtype(ScalarType::Double).out(out).run(),
            Error::InvalidArgument);
}

}  // namespace
