// quantized_decomposed::quantize_per_tensor.out:
// q = clamp(round_half_even(x * (1 / scale)) + zero_point, quant_min, quant_max), in float.
#include <cmath>

#include "kernels/testing/harness.h"

namespace {

using namespace etarm::kernels::testing;

struct Quantize {
  ScalarType dtype;
  double scale;
  int64_t zero_point, qmin, qmax;
};

void check_quantize(const Quantize& q, TestTensor& in) {
  SCOPED_TRACE("scale %g, zero point %d, range [%d, %d]", q.scale, static_cast<int>(q.zero_point),
               static_cast<int>(q.qmin), static_cast<int>(q.qmax));
  TestTensor out(q.dtype, in.sizes()), want(q.dtype, in.sizes());
  ASSERT_EQ(KernelCall("quantized_decomposed::quantize_per_tensor.out")
                .tensor(in).real(q.scale).integer(q.zero_point).integer(q.qmin).integer(q.qmax).dtype(q.dtype)
                .out(out).run(),
            Error::Ok);
  const float inv_scale = static_cast<float>(1.0 / q.scale);
  compute(want, [&](const Index& i) {
    const float v = std::nearbyint(static_cast<float>(value_at(in, i)) * inv_scale) + static_cast<float>(q.zero_point);
    return std::fmin(std::fmax(v, static_cast<float>(q.qmin)), static_cast<float>(q.qmax));
  });
  EXPECT_TENSOR_EQ(out, want);
}

TEST(QuantizePerTensor, Int8RandomWithZeroPoint) {
  TestTensor in(ScalarType::Float, {4, 8});
  fill_uniform(in, 81, -1.5, 1.5);
  check_quantize({ScalarType::Char, 0.01, -3, -128, 127}, in);
}

TEST(QuantizePerTensor, TiesRoundToEven) {
  TestTensor in(ScalarType::Float, {8});
  in.set<float>({0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 0.49999997f, 3.5f});
  check_quantize({ScalarType::Char, 1.0, 0, -128, 127}, in);
  TestTensor out(ScalarType::Char, {8});
  ASSERT_EQ(KernelCall("quantized_decomposed::quantize_per_tensor.out")
                .tensor(in).real(1.0).integer(0).integer(-128).integer(127).dtype(ScalarType::Char).out(out).run(),
            Error::Ok);
  TestTensor even(ScalarType::Char, {8});
  even.set<int8_t>({0, 2, 2, 0, -2, -2, 0, 4});
  EXPECT_TENSOR_EQ(out, even);
}

TEST(QuantizePerTensor, ClampsToTheRange) {
  TestTensor in(ScalarType::Float, {6});
  in.set<float>({-1000.0f, -9.0f, -8.0f, 7.0f, 8.0f, 1e30f});
  check_quantize({ScalarType::Char, 1.0, 0, -8, 7}, in);  // int4 values in int8
}

TEST(QuantizePerTensor, Uint8AndInt16) {
  TestTensor in(ScalarType::Float, {3, 5});
  fill_uniform(in, 82, -2, 2);
  check_quantize({ScalarType::Byte, 0.02, 128, 0, 255}, in);
  check_quantize({ScalarType::Short, 0.0001, 0, -32768, 32767}, in);
}

TEST(QuantizePerTensor, RejectsANonPositiveScale) {
  TestTensor in(ScalarType::Float, {2}), out(ScalarType::Char, {2});
  EXPECT_EQ(KernelCall("quantized_decomposed::quantize_per_tensor.out")
                .tensor(in).real(0.0).integer(0).integer(-128).integer(127).dtype(ScalarType::Char).out(out).run(),
            Error::InvalidArgument);
}

TEST(QuantizePerTensor, RejectsARangeBeyondTheDtype) {
  TestTensor in(ScalarType::Float, {2}), out(ScalarType::Char, {2});
  EXPECT_EQ(KernelCall("quantized_decomposed::quantize_per_tensor.out")
                .tensor(in).real(1.0).integer(0).integer(0).integer(255).dtype(ScalarType::Char).out(out).run(),
            Error::InvalidArgument);
}

}  // namespace
