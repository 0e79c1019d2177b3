// cortex_m::quantized_transpose_conv2d.out against a plain integer reference of a transposed convolution: every
// input pixel scattered through its [C_out, KH, KW, C_in] taps into int64 accumulators (TOSA's TRANSPOSE_CONV2D with
// out_pad top -padding, bottom output_padding - padding), a per-channel RESCALE with single rounding (int16: CMSIS-NN's
// 15-bit multiplier), the output zero point and the fused activation's CLAMP. int8 through arm_transpose_conv_s8 with
// the buffers the program records; int16 through the project's kernel. A sweep over kernel sizes 1-4, strides 1-3,
// every padding below the kernel and every output_padding below the stride (int8 and int16) checks that CMSIS-NN's
// kernel computes exactly this for each window the compiler lowers, padding beyond the stride included.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/cortex_m/test/requantize_reference.h"
#include "kernels/testing/harness.h"

namespace {

using namespace etarm::kernels::testing;

constexpr const char* kOp = "cortex_m::quantized_transpose_conv2d.out";

struct TransposeCase {
  int32_t n, h, w, in_c, kernel_h, kernel_w, out_c;
  int32_t stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0, extra_h = 0, extra_w = 0;  // extra: output_padding
  int32_t input_zp = 0, output_zp = 0, act_min = -128, act_max = 127;
  bool s16 = false;

  TransposeCase& int16_activations() {
    s16 = true;
    input_zp = output_zp = 0;
    act_min = -32767;
    act_max = 32767;
    return *this;
  }
  ScalarType activations() const {
    return s16 ? ScalarType::Short : ScalarType::Char;
  }
  int32_t out_h() const {
    return (h - 1) * stride_h - 2 * pad_h + kernel_h + extra_h;
  }
  int32_t out_w() const {
    return (w - 1) * stride_w - 2 * pad_w + kernel_w + extra_w;
  }
  // What the compiler records (python/etarm/cortex_m/scratch_sizes.py transpose_conv): arm_transpose_conv_s8's column
  // buffer, then its int32 output image; nothing for int16.
  int32_t scratch_bytes() const {
    return s16 ? 0 : 4 * kernel_h * kernel_w * h * w * out_c + 4 * out_h() * out_w() * out_c;
  }
};

struct TransposeData {
  TransposeCase c;
  TestTensor input, weight, bias, multipliers, shifts;

  // Per-channel scales between `scale` and 4 * `scale`.
  TransposeData(const TransposeCase& shape, uint32_t seed, double scale)
      : c(shape), input(shape.activations(), {shape.n, shape.h, shape.w, shape.in_c}),
        weight(ScalarType::Char, {shape.out_c, shape.kernel_h, shape.kernel_w, shape.in_c}),
        bias(shape.s16 ? ScalarType::Long : ScalarType::Int, {shape.out_c}),
        multipliers(ScalarType::Int, {shape.out_c}), shifts(ScalarType::Int, {shape.out_c}) {
    fill_uniform(input, seed, shape.s16 ? -32767 : -128, shape.s16 ? 32767 : 127);
    fill_uniform(weight, seed + 1, -127, 127);
    fill_uniform(bias, seed + 2, shape.s16 ? -1000000 : -5000, shape.s16 ? 1000000 : 5000);
    for (int32_t o = 0; o < c.out_c; ++o) {
      const Params p = params(0, scale * (1.0 + 3.0 * ((o * 5) % c.out_c) / c.out_c));
      multipliers.data<int32_t>()[o] = static_cast<int32_t>(p.multiplier);
      shifts.data<int32_t>()[o] = static_cast<int32_t>(p.shift);
    }
  }

  int32_t input_at(int64_t i) const {
    return c.s16 ? input.data<int16_t>()[i] : input.data<int8_t>()[i];
  }

  // The expected NHWC output into `want`: scatter each input pixel, then requantize each accumulator.
  void reference(TestTensor& want) const {
    const int32_t oh = c.out_h(), ow = c.out_w();
    const int8_t* wd = weight.data<int8_t>();
    std::vector<int64_t> acc(static_cast<size_t>(oh) * ow * c.out_c);
    for (int32_t b = 0; b < c.n; ++b) {
      for (int32_t p = 0; p < oh * ow; ++p) {
        for (int32_t o = 0; o < c.out_c; ++o) {
          acc[p * c.out_c + o] = c.s16 ? bias.data<int64_t>()[o] : bias.data<int32_t>()[o];
        }
      }
      for (int32_t y = 0; y < c.h; ++y) {
        for (int32_t x = 0; x < c.w; ++x) {
          for (int32_t i = 0; i < c.kernel_h; ++i) {
            const int32_t oy = y * c.stride_h - c.pad_h + i;
            for (int32_t j = 0; j < c.kernel_w; ++j) {
              const int32_t ox = x * c.stride_w - c.pad_w + j;
              if (oy < 0 || oy >= oh || ox < 0 || ox >= ow) continue;
              for (int32_t o = 0; o < c.out_c; ++o) {
                for (int32_t ci = 0; ci < c.in_c; ++ci) {
                  const int32_t v = input_at(((b * c.h + y) * c.w + x) * c.in_c + ci);
                  acc[(oy * ow + ox) * c.out_c + o] +=
                      int64_t{v - c.input_zp} * wd[((o * c.kernel_h + i) * c.kernel_w + j) * c.in_c + ci];
                }
              }
            }
          }
        }
      }
      for (int32_t p = 0; p < oh * ow; ++p) {
        for (int32_t o = 0; o < c.out_c; ++o) {
          const Params q = {c.output_zp, multipliers.data<int32_t>()[o], shifts.data<int32_t>()[o]};
          const int64_t a = acc[p * c.out_c + o];
          int64_t v = (c.s16 ? rescale_s16(a, q) : rescale(a, q)) + q.zero_point;
          v = v < c.act_min ? c.act_min : (v > c.act_max ? c.act_max : v);
          const int64_t at = (int64_t{b} * oh * ow + p) * c.out_c + o;
          if (c.s16) {
            want.data<int16_t>()[at] = static_cast<int16_t>(v);
          } else {
            want.data<int8_t>()[at] = static_cast<int8_t>(v);
          }
        }
      }
    }
  }
};

KernelCall& arguments(KernelCall& call, TransposeData& d, TestTensor& input) {
  const TransposeCase& c = d.c;
  return call.tensor(input).integer(c.input_zp).tensor(d.weight).tensor(d.bias).tensor(d.multipliers)
      .tensor(d.shifts).ints({c.stride_h, c.stride_w}).ints({c.pad_h, c.pad_w}).ints({c.extra_h, c.extra_w})
      .integer(c.output_zp).integer(c.act_min).integer(c.act_max);
}

Error call_with_scratch(TransposeData& d, TestTensor& input, TestTensor& out, int64_t scratch_bytes) {
  KernelCall call(kOp);
  return arguments(call, d, input).integer(scratch_bytes).out(out).run();
}

Error call(TransposeData& d, TestTensor& out) {
  return call_with_scratch(d, d.input, out, d.c.scratch_bytes());
}

// Runs the case and returns whether the kernel's output equals the reference's (failing the test when not).
bool check(const TransposeCase& c, uint32_t seed) {
  // Per-channel scales for an output spread over the activations' range: |acc| grows with sqrt(taps per output).
  const double scale = 0.006 / std::sqrt(static_cast<double>(c.kernel_h * c.kernel_w * c.in_c));
  TransposeData d(c, seed, scale);
  TestTensor out(c.activations(), {c.n, c.out_h(), c.out_w(), c.out_c});
  TestTensor want(c.activations(), {c.n, c.out_h(), c.out_w(), c.out_c});
  EXPECT_EQ(call(d, out), Error::Ok);
  d.reference(want);
  const size_t bytes = out.numel() * (c.s16 ? 2 : 1);
  const bool same = std::memcmp(out.data<int8_t>(), want.data<int8_t>(), bytes) == 0;
  EXPECT_TENSOR_EQ(out, want);
  return same;
}

TEST(QuantizedTransposeConv2d, StrideOnePadded) {
  TransposeCase c{1, 5, 5, 3, 3, 3, 4};
  c.pad_h = c.pad_w = 1;
  c.input_zp = -17;
  c.output_zp = 5;
  check(c, 1);
}

TEST(QuantizedTransposeConv2d, StrideTwoOutputPaddingAndBatches) {
  TransposeCase c{2, 4, 3, 5, 3, 3, 6};  // a decoder's 2x upsampling: 4x3 -> 8x6
  c.stride_h = c.stride_w = 2;
  c.pad_h = c.pad_w = 1;
  c.extra_h = c.extra_w = 1;
  c.input_zp = 40;
  c.output_zp = -3;
  check(c, 2);
}

TEST(QuantizedTransposeConv2d, StrideThreeRectangularKernelAndGaps) {
  TransposeCase c{1, 3, 4, 4, 2, 5, 3};  // kernel 2 under stride 3: every third row gets the bias only
  c.stride_h = 3;
  c.stride_w = 2;
  c.pad_w = 2;
  c.extra_h = 2;
  c.extra_w = 1;
  c.input_zp = -128;
  check(c, 3);
}

TEST(QuantizedTransposeConv2d, PaddingBeyondTheStride) {
  TransposeCase wide{1, 4, 4, 2, 5, 5, 3};  // padding 2 under stride 1
  wide.pad_h = wide.pad_w = 2;
  check(wide, 4);
  TransposeCase strided{1, 3, 3, 3, 4, 4, 2};  // padding 3 under stride 2, output_padding 1
  strided.stride_h = strided.stride_w = 2;
  strided.pad_h = strided.pad_w = 3;
  strided.extra_h = strided.extra_w = 1;
  strided.output_zp = 20;
  check(strided, 5);
}

TEST(QuantizedTransposeConv2d, PointwiseAndWideChannels) {
  TransposeCase pointwise{2, 3, 3, 8, 1, 1, 5};  // 1x1 stride 2: a sparse upsampling
  pointwise.stride_h = pointwise.stride_w = 2;
  pointwise.extra_h = 1;
  check(pointwise, 6);
  TransposeCase wide{1, 2, 2, 33, 2, 2, 17};  // odd channel counts (the column matmul's pairs and tails)
  wide.stride_h = wide.stride_w = 2;
  wide.input_zp = 9;
  check(wide, 7);
}

TEST(QuantizedTransposeConv2d, FusedActivationClamps) {
  TransposeCase c{1, 4, 4, 4, 3, 3, 5};
  c.stride_h = c.stride_w = 2;
  c.output_zp = -10;
  c.act_min = -10;  // relu
  c.act_max = 30;
  check(c, 8);
}

// Every window the compiler lowers on a small image, int8 (CMSIS-NN) and int16 (the project's kernel).
TEST(QuantizedTransposeConv2d, EveryStridePaddingAndOutputPadding) {
  int32_t cases = 0, equal = 0;
  for (int32_t s16 = 0; s16 < 2; ++s16) {
    for (int32_t k = 1; k <= 4; ++k) {
      for (int32_t s = 1; s <= 3; ++s) {
        for (int32_t p = 0; p < k; ++p) {
          for (int32_t extra = 0; extra < s; ++extra) {
            TransposeCase c{2, 3, 2, 3, k, k + 1 - (k % 2), 2};
            c.stride_h = s;
            c.stride_w = s == 3 ? 1 : s + 1;
            c.pad_h = p;
            c.pad_w = p / 2;
            c.extra_h = extra;
            c.extra_w = extra < c.stride_w ? extra : 0;
            c.input_zp = 11 - 7 * k;
            c.output_zp = 3 * s - 4;
            if (s16 != 0) {
              c.int16_activations();
            }
            if (c.out_h() < 1 || c.out_w() < 1) continue;
            ++cases;
            equal += check(c, static_cast<uint32_t>(100 + cases)) ? 1 : 0;
          }
        }
      }
    }
  }
  EXPECT_EQ(cases, 118);
  EXPECT_EQ(equal, cases);
}

TEST(QuantizedTransposeConv2d, RejectsBadArguments) {
  TransposeCase c{1, 3, 3, 4, 3, 3, 6};
  c.stride_h = c.stride_w = 2;
  TransposeData d(c, 9, 0.001);
  TestTensor out(ScalarType::Char, {1, 7, 7, 6});
  ASSERT_EQ(call(d, out), Error::Ok);
  TestTensor three_channels(ScalarType::Char, {1, 3, 3, 3});  // the weights want 4
  EXPECT_EQ(call_with_scratch(d, three_channels, out, c.scratch_bytes()), Error::InvalidArgument);
  TestTensor floats(ScalarType::Float, {1, 3, 3, 4});
  EXPECT_EQ(call_with_scratch(d, floats, out, c.scratch_bytes()), Error::InvalidArgument);
  TestTensor int16_input(ScalarType::Short, {1, 3, 3, 4});  // int16 with an int8 output and an int32 bias
  EXPECT_EQ(call_with_scratch(d, int16_input, out, c.scratch_bytes()), Error::InvalidArgument);
  d.c.extra_h = 2;  // output_padding up to the stride
  EXPECT_EQ(call(d, out), Error::InvalidArgument);
  d.c.extra_h = 0;
  d.c.pad_h = 5;  // (3 - 1) * 2 - 10 + 3 < 1: no output
  EXPECT_EQ(call(d, out), Error::InvalidArgument);
  d.c.pad_h = 0;
  d.c.stride_w = 0;
  EXPECT_EQ(call(d, out), Error::InvalidArgument);
  d.c.stride_w = 2;
  d.c.input_zp = 200;  // beyond int8
  EXPECT_EQ(call(d, out), Error::InvalidArgument);
  d.c.input_zp = 0;
  d.c.act_min = 10;
  d.c.act_max = 9;
  EXPECT_EQ(call(d, out), Error::InvalidArgument);
  d.c.act_min = -128;
  d.c.act_max = 127;
  d.shifts.data<int32_t>()[2] = 1;  // a scale of 1 or more
  EXPECT_EQ(call(d, out), Error::InvalidArgument);
  d.shifts.data<int32_t>()[2] = -3;
  d.multipliers.data<int32_t>()[1] = 0;
  EXPECT_EQ(call(d, out), Error::InvalidArgument);
  d.multipliers.data<int32_t>()[1] = 1 << 30;
  EXPECT_EQ(call(d, out), Error::Ok);
  TestTensor short_bias(ScalarType::Int, {5});
  KernelCall with_short_bias(kOp);
  EXPECT_EQ(with_short_bias.tensor(d.input).integer(0).tensor(d.weight).tensor(short_bias).tensor(d.multipliers)
                .tensor(d.shifts).ints({2, 2}).ints({0, 0}).ints({0, 0}).integer(0).integer(-128).integer(127)
                .integer(c.scratch_bytes()).out(out).run(),
            Error::InvalidArgument);
  KernelCall with_three_strides(kOp);
  EXPECT_EQ(with_three_strides.tensor(d.input).integer(0).tensor(d.weight).tensor(d.bias).tensor(d.multipliers)
                .tensor(d.shifts).ints({2, 2, 2}).ints({0, 0}).ints({0, 0}).integer(0).integer(-128).integer(127)
                .integer(c.scratch_bytes()).out(out).run(),
            Error::InvalidArgument);
  KernelCall without_scratch(kOp);
  EXPECT_EQ(arguments(without_scratch, d, d.input).out(out).run(), Error::InvalidArgument);  // one argument short
}

// The program's record against the call's buffers: on a Cortex-M image less is an Error; host builds (plain C as a
// model of every path) take the larger. No record (-1) is an Error everywhere; a call whose buffers do not fit the
// temporary memory fails with MemoryAllocationFailed, never a fault.
TEST(QuantizedTransposeConv2d, ChecksTheRecordedScratchAndTheTemporaryMemory) {
  TransposeCase c{1, 3, 3, 4, 3, 3, 4};
  c.stride_h = c.stride_w = 2;
  TransposeData d(c, 10, 0.002);
  TestTensor out(ScalarType::Char, {1, 7, 7, 4});
  TestTensor want(ScalarType::Char, {1, 7, 7, 4});
  d.reference(want);
  EXPECT_EQ(call_with_scratch(d, d.input, out, -1), Error::InvalidArgument);
#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
  EXPECT_EQ(call_with_scratch(d, d.input, out, c.scratch_bytes() - 1), Error::InvalidArgument);
#else
  ASSERT_EQ(call_with_scratch(d, d.input, out, 0), Error::Ok);
  EXPECT_TENSOR_EQ(out, want);
#endif
  ASSERT_EQ(call_with_scratch(d, d.input, out, c.scratch_bytes()), Error::Ok);
  EXPECT_TENSOR_EQ(out, want);

  TransposeCase large{1, 8, 8, 2, 4, 4, 4};  // 16 KiB of columns and 5 KiB of image: beyond the harness's 16 KiB
  large.stride_h = large.stride_w = 2;
  TransposeData big(large, 11, 0.002);
  TestTensor big_out(ScalarType::Char, {1, large.out_h(), large.out_w(), 4});
  EXPECT_EQ(call(big, big_out), Error::MemoryAllocationFailed);
  TestTensor big_out16(ScalarType::Short, {1, large.out_h(), large.out_w(), 4});
  TransposeData big16(large.int16_activations(), 12, 0.002);  // the int16 kernel needs no scratch
  EXPECT_EQ(call(big16, big_out16), Error::Ok);
}

TEST(QuantizedTransposeConv2dS16, StridedPaddedAndClamped) {
  TransposeCase c{2, 4, 3, 5, 3, 3, 6};
  c.stride_h = c.stride_w = 2;
  c.pad_h = c.pad_w = 1;
  c.extra_h = c.extra_w = 1;
  check(c.int16_activations(), 21);
  TransposeCase gaps{1, 3, 4, 4, 2, 5, 3};
  gaps.stride_h = 3;
  gaps.stride_w = 2;
  gaps.pad_w = 2;
  gaps.extra_h = 2;
  check(gaps.int16_activations(), 22);
  TransposeCase clamped{1, 4, 4, 4, 3, 3, 5};
  clamped.int16_activations();
  clamped.act_min = -1000;
  clamped.act_max = 3000;
  check(clamped, 23);
}

TEST(QuantizedTransposeConv2dS16, RejectsOffsetsMixedTypesAndNarrowBiases) {
  TransposeCase c{1, 3, 3, 4, 3, 3, 6};
  TransposeData d(c.int16_activations(), 24, 0.001);
  TestTensor out(ScalarType::Short, {1, 5, 5, 6}), narrow_out(ScalarType::Char, {1, 5, 5, 6});
  EXPECT_EQ(call(d, out), Error::Ok);
  EXPECT_EQ(call(d, narrow_out), Error::InvalidArgument);
  d.c.input_zp = 1;  // int16 is symmetric
  EXPECT_EQ(call(d, out), Error::InvalidArgument);
  d.c.input_zp = 0;
  d.c.act_min = -32768;  // beyond the symmetric range
  EXPECT_EQ(call(d, out), Error::InvalidArgument);
  d.c.act_min = -32767;
  TestTensor int32_bias(ScalarType::Int, {6});
  KernelCall narrow_bias(kOp);
  EXPECT_EQ(narrow_bias.tensor(d.input).integer(0).tensor(d.weight).tensor(int32_bias).tensor(d.multipliers)
                .tensor(d.shifts).ints({1, 1}).ints({0, 0}).ints({0, 0}).integer(0).integer(-32767).integer(32767)
                .integer(0).out(out).run(),
            Error::InvalidArgument);
}

}  // namespace
