// quantized_decomposed::dequantize_per_tensor.out: x = (q - zero_point) * scale, in float.
#include "kernels/testing/harness.h"

namespace {

using namespace etarm::kernels::testing;

// Random integers over the dtype's range `lo..hi`, dequantized; out_dtype as given (None or Float).
void check_dequantize(ScalarType dtype, double lo, double hi, double scale, int64_t zero_point, bool out_dtype) {
  SCOPED_TRACE("%s, scale %g, zero point %d", executorch::runtime::toString(dtype), scale, static_cast<int>(zero_point));
  TestTensor in(dtype, {3, 7}), out(ScalarType::Float, {3, 7}), want(ScalarType::Float, {3, 7});
  fill_uniform(in, 91, lo, hi);
  KernelCall call("quantized_decomposed::dequantize_per_tensor.out");
  call.tensor(in).real(scale).integer(zero_point).integer(static_cast<int64_t>(lo)).integer(static_cast<int64_t>(hi));
  call.dtype(dtype);
  if (out_dtype) {
    call.dtype(ScalarType::Float);
  } else {
    call.none();
  }
  ASSERT_EQ(call.out(out).run(), Error::Ok);
  compute(want, [&](const Index& i) {
    return (static_cast<float>(value_at(in, i)) - static_cast<float>(zero_point)) * static_cast<float>(scale);
  });
  EXPECT_TENSOR_EQ(out, want);
}

TEST(DequantizePerTensor, Int8) {
  check_dequantize(ScalarType::Char, -128, 127, 0.05, -7, false);
}

TEST(DequantizePerTensor, Uint8WithOutDtype) {
  check_dequantize(ScalarType::Byte, 0, 255, 0.003, 128, true);
}

TEST(DequantizePerTensor, Int16AndInt32) {
  check_dequantize(ScalarType::Short, -32768, 32767, 1e-4, 0, false);
  check_dequantize(ScalarType::Int, -1000000, 1000000, 1e-6, 5, false);
}

TEST(DequantizePerTensor, RejectsAnInputOtherThanTheDtypeArgument) {
  TestTensor in(ScalarType::Char, {2}), out(ScalarType::Float, {2});
  EXPECT_EQ(KernelCall("quantized_decomposed::dequantize_per_tensor.out")
                .tensor(in).real(0.1).integer(0).integer(0).integer(255).dtype(ScalarType::Byte).none().out(out).run(),
            Error::InvalidArgument);
}

TEST(DequantizePerTensor, RejectsADoubleOutput) {
  TestTensor in(ScalarType::Char, {2}), out(ScalarType::Double, {2});
  EXPECT_EQ(KernelCall("quantized_decomposed::dequantize_per_tensor.out")
                .tensor(in).real(0.1).integer(0).integer(-128).integer(127).dtype(ScalarType::Char).none().out(out).run(),
            Error::InvalidArgument);
}

}  // namespace
