// quantized_decomposed::dequantize_per_channel.out:
// x[..., c, ...] = (q - zero_points[c]) * scales[c] along `axis`, in float.
#include "kernels/testing/harness.h"

namespace {

using namespace etarm::kernels::testing;

// Random int8 input of `shape`; channel parameters along `axis` (may be negative); the
// scales' dtype as given; zero points int64 or absent.
void check_per_channel(std::vector<int32_t> shape, int axis, ScalarType scale_dtype, bool zero_points) {
  const int rank = static_cast<int>(shape.size());
  const int channel_dim = axis < 0 ? axis + rank : axis;
  const int32_t channels = shape[channel_dim];
  SCOPED_TRACE("axis %d of %d dims, %d channels", axis, rank, static_cast<int>(channels));
  TestTensor in(ScalarType::Char, shape), out(ScalarType::Float, shape), want(ScalarType::Float, shape);
  TestTensor scales(scale_dtype, {channels}), zps(ScalarType::Long, {channels});
  fill_uniform(in, 101, -128, 127);
  fill_uniform(scales, 102, 0.001, 0.1);
  fill_uniform(zps, 103, -10, 10);
  KernelCall call("quantized_decomposed::dequantize_per_channel.out");
  call.tensor(in).tensor(scales);
  if (zero_points) {
    call.tensor(zps);
  } else {
    call.none();
  }
  call.integer(axis).integer(-128).integer(127).dtype(ScalarType::Char).none();
  ASSERT_EQ(call.out(out).run(), Error::Ok);
  compute(want, [&](const Index& i) {
    const Index c = scales.make_index({i[channel_dim]});
    const float zp = zero_points ? static_cast<float>(value_at(zps, c)) : 0.0f;
    return (static_cast<float>(value_at(in, i)) - zp) * static_cast<float>(value_at(scales, c));
  });
  EXPECT_TENSOR_EQ(out, want);
}

TEST(DequantizePerChannel, Axis0OfAWeight) {
  check_per_channel({4, 3, 2, 2}, 0, ScalarType::Float, true);
}

TEST(DequantizePerChannel, InnerAxisNegative) {
  check_per_channel({2, 5, 3}, -2, ScalarType::Float, true);
}

TEST(DequantizePerChannel, LastAxisDoubleScalesNoZeroPoints) {
  check_per_channel({3, 6}, 1, ScalarType::Double, false);
}

// int8 [-128, 127] without zero points.
Error dequantize(TestTensor& in, TestTensor& scales, int64_t axis, TestTensor& out) {
  return KernelCall("quantized_decomposed::dequantize_per_channel.out")
      .tensor(in).tensor(scales).none().integer(axis).integer(-128).integer(127).dtype(ScalarType::Char).none()
      .out(out).run();
}

TEST(DequantizePerChannel, RejectsScalesOfTheWrongLength) {
  TestTensor in(ScalarType::Char, {3, 4}), scales(ScalarType::Float, {4}), out(ScalarType::Float, {3, 4});
  EXPECT_EQ(dequantize(in, scales, 0, out), Error::InvalidArgument);
}

TEST(DequantizePerChannel, RejectsAnAxisOutOfRange) {
  TestTensor in(ScalarType::Char, {3, 4}), scales(ScalarType::Float, {3}), out(ScalarType::Float, {3, 4});
  EXPECT_EQ(dequantize(in, scales, 2, out), Error::InvalidArgument);
}

}  // namespace
