// cortex_m::quantized_linear.out against a plain integer reference of TOSA's quantized linear: an int32
// FULLY_CONNECTED (MATMUL of input - zero point with the weights, plus the int32 bias), a RESCALE per tensor or
// per output channel with single rounding, the output zero point, and the fused activation as a CLAMP.
// Bit-exact on every CMSIS-NN code path (host: plain C; Corstone-300: MVE with the precomputed kernel sums;
// M55 without MVE, M4, M33: DSP), for per-tensor weights (arm_fully_connected_s8) and per-channel ones
// (arm_convolve_1x1_s8_fast). With int16 activations (a16w8: arm_fully_connected_s16, int64 bias, zero points 0)
// against the definition of CMSIS-NN's s16 requantization: the multiplier's top 15 bits, one rounding half up.
// With int4 weights (a8w4: quantized_linear_s4, packed two per byte) against the same reference.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/cortex_m/test/int4_reference.h"
#include "kernels/cortex_m/test/requantize_reference.h"
#include "kernels/testing/harness.h"
#include "third_party/cmsis_nn/code_path.h"

namespace {

using namespace etarm::kernels::testing;

constexpr const char* kOp = "cortex_m::quantized_linear.out";

// A scale in (0, 1) as multiplier in [2^30, 2^31) and shift: multiplier * 2^(shift - 31).
void multiplier_and_shift(double scale, int32_t* multiplier, int32_t* shift) {
  int exponent;
  const double mantissa = std::frexp(scale, &exponent);
  int64_t m = std::llround(mantissa * 2147483648.0);
  if (m == (int64_t{1} << 31)) {
    m >>= 1;
    ++exponent;
  }
  *multiplier = static_cast<int32_t>(m);
  *shift = exponent;
}

// One linear layer: int8 weight [N, K], int32 bias [N] (or none), the row sums of the weights, per-tensor
// (one) or per-channel (N) multipliers and shifts, zero points and the clamp range. `s16`: for int16
// activations, an int64 bias, no row sums, zero points 0 and the int16 range.
struct Linear {
  int32_t n, k;
  bool bias_given, s16;
  TestTensor weight, bias, kernel_sum, multipliers, shifts;
  int32_t input_zp, output_zp, act_min, act_max;

  Linear(int32_t out_features, int32_t in_features, const std::vector<double>& scales, bool with_bias, uint32_t seed,
         int32_t in_zp, int32_t out_zp, bool int16 = false)
      : n(out_features), k(in_features), bias_given(with_bias), s16(int16),
        weight(ScalarType::Char, {out_features, in_features}),
        bias(int16 ? ScalarType::Long : ScalarType::Int, {out_features}),
        kernel_sum(ScalarType::Int, {int16 ? 0 : out_features}),
        multipliers(ScalarType::Int, {static_cast<int32_t>(scales.size())}),
        shifts(ScalarType::Int, {static_cast<int32_t>(scales.size())}), input_zp(in_zp), output_zp(out_zp),
        act_min(int16 ? -32767 : -128), act_max(int16 ? 32767 : 127) {
    fill_uniform(weight, seed, -127, 127);
    fill_uniform(bias, seed + 1, int16 ? -3000000 : -20000, int16 ? 3000000 : 20000);
    for (int32_t row = 0; !s16 && row < n; ++row) {
      int32_t sum = 0;
      for (int32_t col = 0; col < k; ++col) {
        sum += weight.data<int8_t>()[row * k + col];
      }
      kernel_sum.data<int32_t>()[row] = sum;
    }
    for (size_t i = 0; i < scales.size(); ++i) {
      multiplier_and_shift(scales[i], &multipliers.data<int32_t>()[i], &shifts.data<int32_t>()[i]);
    }
  }

  template <typename T>
  int64_t reference(const T* row, int32_t channel) const {
    int64_t acc = !bias_given ? 0 : s16 ? bias.data<int64_t>()[channel] : bias.data<int32_t>()[channel];
    for (int32_t col = 0; col < k; ++col) {
      acc += (int64_t{row[col]} - input_zp) * weight.data<int8_t>()[channel * k + col];
    }
    const int32_t p = multipliers.numel() == 1 ? 0 : channel;
    const etarm::kernels::testing::Params scale = {0, multipliers.data<int32_t>()[p], shifts.data<int32_t>()[p]};
    const int64_t q = (s16 ? etarm::kernels::testing::rescale_s16(acc, scale)
                           : etarm::kernels::testing::rescale(acc, scale)) + output_zp;
    return q < act_min ? act_min : (q > act_max ? act_max : q);
  }
};

Error call(TestTensor& input, Linear& l, TestTensor& out) {
  KernelCall c(kOp);
  c.tensor(input).integer(l.input_zp).tensor(l.weight);
  if (l.bias_given) {
    c.tensor(l.bias);
  } else {
    c.none();
  }
  return c.tensor(l.kernel_sum).tensor(l.multipliers).tensor(l.shifts)
      .integer(l.output_zp).integer(l.act_min).integer(l.act_max).out(out).run();
}

template <typename T>
void check_linear_of(TestTensor& input, Linear& l) {
  std::vector<int32_t> sizes = input.sizes();
  sizes.back() = l.n;
  TestTensor out(input.dtype(), sizes), want(input.dtype(), sizes);
  ASSERT_EQ(call(input, l, out), Error::Ok);
  const T* in = input.data<T>();
  T* w = want.data<T>();
  const size_t rows = input.numel() / l.k;
  for (size_t r = 0; r < rows; ++r) {
    for (int32_t c = 0; c < l.n; ++c) {
      w[r * l.n + c] = static_cast<T>(l.reference(in + r * l.k, c));
    }
  }
  EXPECT_TENSOR_EQ(out, want);
}

void check_linear(TestTensor& input, Linear& l) {
  if (l.s16) {
    check_linear_of<int16_t>(input, l);
  } else {
    check_linear_of<int8_t>(input, l);
  }
}

// Per-channel scales between 1e-4 and 4e-3 (input scale * weight scale / output scale of typical layers).
std::vector<double> channel_scales(int32_t n) {
  std::vector<double> s;
  for (int32_t i = 0; i < n; ++i) {
    s.push_back(1e-4 * (1.0 + 39.0 * ((i * 7) % n) / n));
  }
  return s;
}

TEST(QuantizedLinear, PerTensorRandom) {
  // K = 37 and N = 13: MVE's 16-byte and 4-row loops with tails; three batch rows.
  Linear l(13, 37, {0.0013}, true, 1, -5, 3);
  TestTensor input(ScalarType::Char, {3, 37});
  fill_uniform(input, 2, -128, 127);
  check_linear(input, l);
}

TEST(QuantizedLinear, PerChannelRandomRank3) {
  Linear l(7, 20, channel_scales(7), true, 3, 17, -9);
  TestTensor input(ScalarType::Char, {2, 3, 20});
  fill_uniform(input, 4, -128, 127);
  check_linear(input, l);
}

TEST(QuantizedLinear, WideLayersBothKinds) {
  // The mlp's layers: 16 -> 32 and 32 -> 10.
  TestTensor x16(ScalarType::Char, {2, 16}), x32(ScalarType::Char, {2, 32});
  fill_uniform(x16, 5, -128, 127);
  fill_uniform(x32, 6, -128, 127);
  Linear a(32, 16, {0.004}, true, 7, 25, -128);
  check_linear(x16, a);
  Linear b(32, 16, channel_scales(32), true, 8, 25, -128);
  check_linear(x16, b);
  Linear c(10, 32, channel_scales(10), true, 9, -128, -8);
  check_linear(x32, c);
}

TEST(QuantizedLinear, WithoutBias) {
  TestTensor input(ScalarType::Char, {4, 9});
  fill_uniform(input, 10, -128, 127);
  Linear per_tensor(5, 9, {0.002}, false, 11, 0, 0);
  check_linear(input, per_tensor);
  Linear per_channel(5, 9, channel_scales(5), false, 12, -3, 4);
  check_linear(input, per_channel);
}

TEST(QuantizedLinear, FusedActivationClamps) {
  TestTensor input(ScalarType::Char, {3, 24});
  fill_uniform(input, 13, -128, 127);
  Linear relu(11, 24, {0.003}, true, 14, 2, -20);
  relu.act_min = -20;  // relu: nothing below the output's zero point
  check_linear(input, relu);
  Linear narrow(11, 24, channel_scales(11), true, 15, 2, 0);
  narrow.act_min = -6;  // hardtanh
  narrow.act_max = 6;
  check_linear(input, narrow);
  std::vector<int32_t> sizes = {3, 11};
  TestTensor out(ScalarType::Char, sizes);
  ASSERT_EQ(call(input, narrow, out), Error::Ok);
  bool both_ends = false, low = false;
  for (size_t i = 0; i < out.numel(); ++i) {
    const int8_t v = out.data<int8_t>()[i];
    EXPECT_TRUE(v >= -6 && v <= 6);
    both_ends |= v == 6;
    low |= v == -6;
  }
  EXPECT_TRUE(both_ends && low);  // the clamp did cut on both sides
}

TEST(QuantizedLinear, RoundsHalfUp) {
  // One input feature, weight 1, scale 1/2: x / 2 exactly, .5 rounds toward +inf (TOSA's single rounding).
  Linear l(1, 1, {0.5}, false, 16, 0, 0);
  l.weight.data<int8_t>()[0] = 1;
  l.kernel_sum.data<int32_t>()[0] = 1;
  TestTensor input(ScalarType::Char, {4, 1}), out(ScalarType::Char, {4, 1}), want(ScalarType::Char, {4, 1});
  input.set<int8_t>({1, -1, 3, -3});
  ASSERT_EQ(call(input, l, out), Error::Ok);
  want.set<int8_t>({1, 0, 2, -1});
  EXPECT_TENSOR_EQ(out, want);
}

TEST(QuantizedLinear, OnlyTheMvePathReadsTheKernelSums) {
  // The precomputed row sums feed arm_fully_connected_s8's MVE path (input offset * row sum, bias added
  // separately); the DSP and plain C paths compute the offset term themselves. Wrong sums must change the
  // MVE result and nothing else: proof that the kernel hands them over and that their format is the one
  // this CMSIS-NN expects (the exact result with the right sums is checked above on every path).
  Linear l(6, 19, {0.002}, true, 22, 40, 0);
  TestTensor input(ScalarType::Char, {2, 19}), right(ScalarType::Char, {2, 6}), wrong(ScalarType::Char, {2, 6});
  fill_uniform(input, 23, -128, 127);
  ASSERT_EQ(call(input, l, right), Error::Ok);
  for (int32_t row = 0; row < l.n; ++row) {
    l.kernel_sum.data<int32_t>()[row] += 1000;  // 40 * 1000 * 0.002 = 80 output steps
  }
  ASSERT_EQ(call(input, l, wrong), Error::Ok);
  const bool mve = std::strcmp(etarm_cmsis_nn_code_path(), "MVE") == 0;
  const bool same = std::memcmp(right.data<int8_t>(), wrong.data<int8_t>(), right.numel()) == 0;
  EXPECT_TRUE(mve ? !same : same);
}

TEST(QuantizedLinear, EmptyBatch) {
  Linear l(4, 6, {0.01}, true, 17, 0, 0);
  TestTensor input(ScalarType::Char, {0, 6}), out(ScalarType::Char, {0, 4});
  EXPECT_EQ(call(input, l, out), Error::Ok);
}

TEST(QuantizedLinear, RejectsOtherDtypesAndShapes) {
  Linear l(4, 6, {0.01}, true, 18, 0, 0);
  TestTensor x(ScalarType::Char, {2, 6}), out(ScalarType::Char, {2, 4});
  TestTensor fx(ScalarType::Float, {2, 6}), wide_out(ScalarType::Short, {2, 4});
  EXPECT_EQ(call(fx, l, out), Error::InvalidArgument);
  EXPECT_EQ(call(x, l, wide_out), Error::InvalidArgument);
  TestTensor x5(ScalarType::Char, {2, 5});
  EXPECT_EQ(call(x5, l, out), Error::InvalidArgument);  // K differs from the weight's
  TestTensor rank3_out(ScalarType::Char, {1, 2, 4});
  EXPECT_EQ(call(x, l, rank3_out), Error::InvalidArgument);
  Linear three_scales(4, 6, {0.01, 0.02, 0.03}, true, 19, 0, 0);  // neither 1 nor N
  EXPECT_EQ(call(x, three_scales, out), Error::InvalidArgument);
  Linear short_sums(4, 6, {0.01}, true, 20, 0, 0);
  TestTensor sums3(ScalarType::Int, {3});
  EXPECT_EQ(KernelCall(kOp).tensor(x).integer(0).tensor(short_sums.weight).tensor(short_sums.bias).tensor(sums3)
                .tensor(short_sums.multipliers).tensor(short_sums.shifts).integer(0).integer(-128).integer(127)
                .out(out).run(),
            Error::InvalidArgument);
  TestTensor float_bias(ScalarType::Float, {4});
  EXPECT_EQ(KernelCall(kOp).tensor(x).integer(0).tensor(l.weight).tensor(float_bias).tensor(l.kernel_sum)
                .tensor(l.multipliers).tensor(l.shifts).integer(0).integer(-128).integer(127).out(out).run(),
            Error::InvalidArgument);
}

TEST(QuantizedLinear, RejectsParametersOutOfRange) {
  TestTensor x(ScalarType::Char, {2, 6}), out(ScalarType::Char, {2, 4});
  Linear l(4, 6, channel_scales(4), true, 21, 0, 0);
  ASSERT_EQ(call(x, l, out), Error::Ok);
  l.input_zp = 128;
  EXPECT_EQ(call(x, l, out), Error::InvalidArgument);
  l.input_zp = 0;
  l.output_zp = -129;
  EXPECT_EQ(call(x, l, out), Error::InvalidArgument);
  l.output_zp = 0;
  l.act_min = 10;
  l.act_max = 5;
  EXPECT_EQ(call(x, l, out), Error::InvalidArgument);
  l.act_min = -129;
  l.act_max = 127;
  EXPECT_EQ(call(x, l, out), Error::InvalidArgument);
  l.act_min = -128;
  l.shifts.data<int32_t>()[2] = 1;  // a scale of 1 or more in one channel
  EXPECT_EQ(call(x, l, out), Error::InvalidArgument);
  l.shifts.data<int32_t>()[2] = -3;
  l.multipliers.data<int32_t>()[3] = 0;
  EXPECT_EQ(call(x, l, out), Error::InvalidArgument);
  EXPECT_EQ(KernelCall(kOp).tensor(x).integer(0).tensor(l.weight).out(out).run(), Error::InvalidArgument);
}

}  // namespace

// int16 activations (a16w8). Scales of 1e-4 to 4e-3 spread random layers over the int16 range, a few saturating.
std::vector<double> s16_scales(int32_t n) {
  std::vector<double> s;
  for (int32_t i = 0; i < n; ++i) {
    s.push_back(1e-4 * (1.0 + 39.0 * ((i * 5) % n) / n));
  }
  return s;
}

TEST(QuantizedLinearS16, PerTensorAndPerChannel) {
  // K = 37, N = 13: MVE's 8-lane and 4-row loops and DSP's 2-row, 4-column loops with tails; rank 3.
  TestTensor input(ScalarType::Short, {2, 3, 37});
  fill_uniform(input, 30, -32768, 32767);
  Linear per_tensor(13, 37, {2.3e-3}, true, 31, 0, 0, true);
  check_linear(input, per_tensor);
  Linear per_channel(13, 37, s16_scales(13), true, 32, 0, 0, true);
  check_linear(input, per_channel);
  Linear no_bias(13, 37, s16_scales(13), false, 33, 0, 0, true);
  check_linear(input, no_bias);
}

TEST(QuantizedLinearS16, ClampsAndRoundsHalfUp) {
  TestTensor input(ScalarType::Short, {3, 24});
  fill_uniform(input, 34, -32768, 32767);
  Linear relu(11, 24, s16_scales(11), true, 35, 0, 0, true);
  relu.act_min = 0;
  relu.act_max = 1000;
  check_linear(input, relu);
  // x * 1/2: .5 rounds toward +inf.
  Linear half(1, 1, {0.5}, false, 36, 0, 0, true);
  half.weight.data<int8_t>()[0] = 1;
  TestTensor x(ScalarType::Short, {4, 1}), out(ScalarType::Short, {4, 1}), want(ScalarType::Short, {4, 1});
  x.set<int16_t>({1, -1, 3, -32767});
  ASSERT_EQ(call(x, half, out), Error::Ok);
  want.set<int16_t>({1, 0, 2, -16383});
  EXPECT_TENSOR_EQ(out, want);
}

TEST(QuantizedLinearS16, RejectsMixedTypesAndOffsets) {
  Linear l(4, 6, {0.01}, true, 37, 0, 0, true);
  TestTensor x(ScalarType::Short, {2, 6}), out(ScalarType::Short, {2, 4}), narrow_out(ScalarType::Char, {2, 4});
  EXPECT_EQ(call(x, l, out), Error::Ok);
  EXPECT_EQ(call(x, l, narrow_out), Error::InvalidArgument);  // int16 in, int8 out
  Linear offset(4, 6, {0.01}, true, 37, 3, 0, true);  // int16 is symmetric: zero point 0
  EXPECT_EQ(call(x, offset, out), Error::InvalidArgument);
  Linear int8_layer(4, 6, {0.01}, true, 37, 0, 0);  // int32 bias and row sums with int16 data
  EXPECT_EQ(call(x, int8_layer, out), Error::InvalidArgument);
  Linear wide_clamp(4, 6, {0.01}, true, 37, 0, 0);
  wide_clamp.act_min = -32768;  // an int8 layer with int16's range
  TestTensor x8(ScalarType::Char, {2, 6}), out8(ScalarType::Char, {2, 4});
  EXPECT_EQ(call(x8, wide_clamp, out8), Error::InvalidArgument);
}

// int4 weights (a8w4, cortex_m::quantized_linear_s4): the weight's values within [-8, 7], packed two per byte;
// arm_fully_connected_s4 per tensor, arm_convolve_1x1_s4_fast per channel, against the same reference with the
// unpacked weights. Odd K puts rows across byte boundaries.
namespace {

constexpr const char* kOpS4 = "cortex_m::quantized_linear_s4.out";

// `l`'s weights redrawn within int4's range, and their packed form.
void int4_weights(Linear& l, TestTensor& packed, uint32_t seed) {
  fill_uniform(l.weight, seed, -8, 7);
  pack_int4(l.weight, packed);
}

Error call_s4(TestTensor& input, Linear& l, TestTensor& packed, const std::vector<int64_t>& shape, TestTensor& out) {
  KernelCall c(kOpS4);
  c.tensor(input).integer(l.input_zp).tensor(packed);
  if (l.bias_given) {
    c.tensor(l.bias);
  } else {
    c.none();
  }
  return c.tensor(l.multipliers).tensor(l.shifts).integer(l.output_zp).integer(l.act_min).integer(l.act_max)
      .ints(shape).out(out).run();
}

void check_s4(TestTensor& input, Linear& l, uint32_t seed) {
  TestTensor packed(ScalarType::Char, {(l.n * l.k + 1) / 2});
  int4_weights(l, packed, seed);
  std::vector<int32_t> sizes = input.sizes();
  sizes.back() = l.n;
  TestTensor out(ScalarType::Char, sizes), want(ScalarType::Char, sizes);
  ASSERT_EQ(call_s4(input, l, packed, {l.n, l.k}, out), Error::Ok);
  const int8_t* in = input.data<int8_t>();
  const size_t rows = input.numel() / l.k;
  for (size_t r = 0; r < rows; ++r) {
    for (int32_t c = 0; c < l.n; ++c) {
      want.data<int8_t>()[r * l.n + c] = static_cast<int8_t>(l.reference(in + r * l.k, c));
    }
  }
  EXPECT_TENSOR_EQ(out, want);
}

// int4 products are a 16th of int8 ones: scales 16 times larger spread the outputs over int8.
std::vector<double> s4_scales(int32_t n) {
  std::vector<double> s = channel_scales(n);
  for (double& v : s) {
    v *= 16;
  }
  return s;
}

TEST(QuantizedLinearS4, PerTensorOddAndEven) {
  TestTensor input(ScalarType::Char, {3, 37});  // K = 37, N = 13: every row starts at the other nibble
  fill_uniform(input, 40, -128, 127);
  Linear odd(13, 37, {0.02}, true, 41, -5, 3);
  check_s4(input, odd, 42);
  TestTensor x32(ScalarType::Char, {2, 32});
  fill_uniform(x32, 43, -128, 127);
  Linear even(10, 32, {0.03}, true, 44, 25, -128);
  check_s4(x32, even, 45);
  Linear no_bias(5, 37, {0.02}, false, 46, 0, 0);
  check_s4(input, no_bias, 47);
}

TEST(QuantizedLinearS4, PerChannelRank3AndClamps) {
  TestTensor input(ScalarType::Char, {2, 3, 21});
  fill_uniform(input, 48, -128, 127);
  Linear l(7, 21, s4_scales(7), true, 49, 17, -9);
  check_s4(input, l, 50);
  Linear no_bias(9, 21, s4_scales(9), false, 51, -3, 4);
  check_s4(input, no_bias, 52);
  Linear relu(11, 21, s4_scales(11), true, 53, 2, -20);
  relu.act_min = -20;
  relu.act_max = 60;
  check_s4(input, relu, 54);
}

TEST(QuantizedLinearS4, RejectsBadArguments) {
  Linear l(5, 7, {0.02}, true, 55, 0, 0);  // 35 weights: 18 bytes
  TestTensor packed(ScalarType::Char, {18});
  int4_weights(l, packed, 56);
  TestTensor x(ScalarType::Char, {2, 7}), out(ScalarType::Char, {2, 5});
  ASSERT_EQ(call_s4(x, l, packed, {5, 7}, out), Error::Ok);
  TestTensor short_packed(ScalarType::Char, {17}), long_packed(ScalarType::Char, {19});
  EXPECT_EQ(call_s4(x, l, short_packed, {5, 7}, out), Error::InvalidArgument);
  EXPECT_EQ(call_s4(x, l, long_packed, {5, 7}, out), Error::InvalidArgument);
  EXPECT_EQ(call_s4(x, l, l.weight, {5, 7}, out), Error::InvalidArgument);  // the unpacked [N, K] weight
  EXPECT_EQ(call_s4(x, l, packed, {7, 5}, out), Error::InvalidArgument);  // K differs from the input's
  EXPECT_EQ(call_s4(x, l, packed, {35}, out), Error::InvalidArgument);
  EXPECT_EQ(call_s4(x, l, packed, {-5, -7}, out), Error::InvalidArgument);
  TestTensor x16(ScalarType::Short, {2, 7}), out16(ScalarType::Short, {2, 5});
  EXPECT_EQ(call_s4(x16, l, packed, {5, 7}, out16), Error::InvalidArgument);  // no s16 x s4 kernel
  Linear three_scales(5, 7, {0.01, 0.02, 0.03}, true, 57, 0, 0);
  EXPECT_EQ(call_s4(x, three_scales, packed, {5, 7}, out), Error::InvalidArgument);
  l.input_zp = 128;
  EXPECT_EQ(call_s4(x, l, packed, {5, 7}, out), Error::InvalidArgument);
  l.input_zp = 0;
  l.shifts.data<int32_t>()[0] = 1;
  EXPECT_EQ(call_s4(x, l, packed, {5, 7}, out), Error::InvalidArgument);
  // The s8 op refuses the packed weight.
  l.shifts.data<int32_t>()[0] = -5;
  EXPECT_EQ(KernelCall(kOp).tensor(x).integer(0).tensor(packed).tensor(l.bias).tensor(l.kernel_sum)
                .tensor(l.multipliers).tensor(l.shifts).integer(0).integer(-128).integer(127).out(out).run(),
            Error::InvalidArgument);
}

}  // namespace
