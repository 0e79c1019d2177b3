// aten::convolution.out: direct 1-D and 2-D float convolution with stride, padding,
// dilation and groups, optional bias; transposed convolution is refused.
#include "kernels/testing/harness.h"

namespace {

using namespace etarm::kernels::testing;

struct Conv {
  int32_t batch, in_channels, out_channels, groups;
  std::vector<int32_t> input;   // spatial sizes: {L} or {H, W}
  std::vector<int32_t> kernel;  // {kL} or {kH, kW}
  int32_t stride, padding, dilation;
  bool bias;
};

// The output size of one spatial dim.
int32_t out_size(int32_t in, int32_t k, const Conv& c) {
  return (in + 2 * c.padding - c.dilation * (k - 1) - 1) / c.stride + 1;
}

void check_conv(const Conv& c) {
  SCOPED_TRACE("%d-D, %d -> %d channels, groups %d, stride %d, padding %d, dilation %d%s",
               static_cast<int>(c.input.size()), static_cast<int>(c.in_channels), static_cast<int>(c.out_channels),
               static_cast<int>(c.groups), static_cast<int>(c.stride), static_cast<int>(c.padding),
               static_cast<int>(c.dilation), c.bias ? ", bias" : "");
  const size_t spatial = c.input.size();
  std::vector<int32_t> in_shape = {c.batch, c.in_channels}, w_shape = {c.out_channels, c.in_channels / c.groups};
  std::vector<int32_t> out_shape = {c.batch, c.out_channels};
  for (size_t d = 0; d < spatial; ++d) {
    in_shape.push_back(c.input[d]);
    w_shape.push_back(c.kernel[d]);
    out_shape.push_back(out_size(c.input[d], c.kernel[d], c));
  }
  TestTensor in(ScalarType::Float, in_shape), w(ScalarType::Float, w_shape), b(ScalarType::Float, {c.out_channels});
  TestTensor out(ScalarType::Float, out_shape), want(ScalarType::Float, out_shape);
  fill_uniform(in, 71, -1, 1);
  fill_uniform(w, 72, -1, 1);
  fill_uniform(b, 73, -1, 1);
  KernelCall call("aten::convolution.out");
  call.tensor(in).tensor(w);
  if (c.bias) {
    call.tensor(b);
  } else {
    call.none();
  }
  // One entry per spatial dim (the kernel also takes one for all: RejectsTransposed).
  const std::vector<int64_t> stride(spatial, c.stride), padding(spatial, c.padding), dilation(spatial, c.dilation);
  call.ints(stride).ints(padding).ints(dilation).boolean(false).ints(std::vector<int64_t>(spatial, 0)).integer(c.groups);
  ASSERT_EQ(call.out(out).run(), Error::Ok);

  const int32_t group_in = c.in_channels / c.groups, group_out = c.out_channels / c.groups;
  compute(want, [&](const Index& o) {
    double acc = c.bias ? value_at(b, b.make_index({o[1]})) : 0.0;
    const int32_t g = o[1] / group_out;
    Index x = o, k = o;
    k.at[0] = o[1];
    for (int32_t ic = 0; ic < group_in; ++ic) {
      x.at[1] = g * group_in + ic;
      k.at[1] = ic;
      // Every kernel position: odometer over the spatial dims.
      for_each_index(c.kernel, [&](const Index& kpos) {
        for (size_t d = 0; d < spatial; ++d) {
          const int32_t pos = o[2 + d] * c.stride - c.padding + kpos[d] * c.dilation;
          if (pos < 0 || pos >= c.input[d]) return;
          x.at[2 + d] = pos;
          k.at[2 + d] = kpos[d];
        }
        acc += value_at(in, x) * value_at(w, k);
      });
    }
    return acc;
  });
  EXPECT_TENSOR_CLOSE(out, want, 1e-5, 1e-5);
}

TEST(Convolution, Plain2d) {
  check_conv({1, 2, 3, 1, {5, 5}, {3, 3}, 1, 0, 1, true});
}

TEST(Convolution, StridedAndPadded) {
  check_conv({2, 3, 4, 1, {7, 6}, {3, 2}, 2, 1, 1, true});
}

TEST(Convolution, Dilated) {
  check_conv({1, 1, 2, 1, {9, 9}, {3, 3}, 1, 2, 2, false});
}

TEST(Convolution, GroupedAndDepthwise) {
  check_conv({1, 4, 6, 2, {5, 5}, {3, 3}, 1, 1, 1, true});
  check_conv({1, 3, 3, 3, {4, 4}, {3, 3}, 1, 1, 1, false});
}

TEST(Convolution, OneDimensional) {
  check_conv({2, 2, 3, 1, {10}, {4}, 2, 1, 1, true});
}

TEST(Convolution, PointwiseWithoutBias) {
  check_conv({1, 5, 2, 1, {3, 3}, {1, 1}, 1, 0, 1, false});
}

// One stride, padding and dilation for all dims, no bias.
Error convolve(TestTensor& in, TestTensor& w, TestTensor& out, bool transposed) {
  return KernelCall("aten::convolution.out")
      .tensor(in).tensor(w).none().ints({1}).ints({0}).ints({1}).boolean(transposed).ints({0}).integer(1)
      .out(out).run();
}

TEST(Convolution, RejectsTransposed) {
  TestTensor in(ScalarType::Float, {1, 1, 4, 4}), w(ScalarType::Float, {1, 1, 2, 2}), out(ScalarType::Float, {1, 1, 5, 5});
  EXPECT_EQ(convolve(in, w, out, true), Error::InvalidArgument);
}

TEST(Convolution, RejectsAKernelLargerThanThePaddedInput) {
  TestTensor in(ScalarType::Float, {1, 1, 2, 2}), w(ScalarType::Float, {1, 1, 3, 3}), out(ScalarType::Float, {1, 1, 1, 1});
  EXPECT_EQ(convolve(in, w, out, false), Error::InvalidArgument);
}

}  // namespace
