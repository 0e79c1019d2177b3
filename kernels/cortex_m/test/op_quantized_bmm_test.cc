// cortex_m::quantized_bmm.out against a plain integer reference: TOSA's MATMUL of the centred operands (exact int64
// sums) and one RESCALE rounding half up, the output zero point and saturation. int8 with 32-bit multipliers; int16
// (a16w8) with zero points 0 and TOSA's 16-bit multiplier in the top bits. Shapes with MVE tails (K not a multiple of
// 8, N not of 4), batch broadcasting, rank 2, the transposed right operand, the longest sums, rejected arguments.
#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/cortex_m/test/requantize_reference.h"
#include "kernels/testing/harness.h"

namespace {

using namespace etarm::kernels::testing;

constexpr const char* kOp = "cortex_m::quantized_bmm.out";

struct Bmm {
  int32_t a_zp = 0, b_zp = 0, out_zp = 0;
  bool transposed = false;
  int64_t multiplier = 0, shift = 0;
};

// int8: the 32-bit multiplier and shift of a scale (requantize_reference.h params).
Bmm int8_bmm(int32_t a_zp, int32_t b_zp, int32_t out_zp, double scale) {
  const Params p = params(out_zp, scale);
  Bmm c;
  c.a_zp = a_zp;
  c.b_zp = b_zp;
  c.out_zp = out_zp;
  c.multiplier = p.multiplier;
  c.shift = p.shift;
  return c;
}

// int16: TOSA's 16-bit multiplier in [2^14, 2^15) (an int48 RESCALE), shifted into the top bits.
Bmm int16_bmm(double scale) {
  int exponent;
  int64_t m15 = std::llround(std::frexp(scale, &exponent) * 32768.0);
  if (m15 == 32768) {
    m15 >>= 1;
    ++exponent;
  }
  Bmm c;
  c.multiplier = m15 << 16;
  c.shift = exponent;
  return c;
}

Error call(TestTensor& a, TestTensor& b, const Bmm& c, TestTensor& out) {
  return KernelCall(kOp)
      .tensor(a).integer(c.a_zp).tensor(b).integer(c.b_zp).boolean(c.transposed).integer(c.out_zp)
      .integer(c.multiplier).integer(c.shift).out(out).run();
}

// round_half_up(acc * multiplier * 2^(shift - 31)) exactly: int16's multiplier has 16 zero low bits, so the 15-bit
// product (no int64 overflow for 47-bit sums) is the same value.
int64_t reference_rescale(int64_t acc, const Bmm& c, bool s16) {
  const int64_t m = s16 ? c.multiplier >> 16 : c.multiplier;
  const int64_t right = s16 ? 15 - c.shift : 31 - c.shift;
  return (acc * m + (int64_t{1} << (right - 1))) >> right;
}

// The output's shape: [max(Ba, Bb), M, N] (or [M, N]) for a [Ba, M, K] and b [Bb, K, N] ([Bb, N, K] transposed).
std::vector<int32_t> product_shape(const TestTensor& a, const TestTensor& b, const Bmm& c) {
  const auto& as = a.sizes();
  const auto& bs = b.sizes();
  const size_t rank = as.size();
  const int32_t n = c.transposed ? bs[rank - 2] : bs[rank - 1];
  if (rank == 2) {
    return {as[0], n};
  }
  return {as[0] > bs[0] ? as[0] : bs[0], as[1], n};
}

// T: int8_t or int16_t; want has product_shape's shape.
template <typename T>
void reference(TestTensor& a, TestTensor& b, const Bmm& c, TestTensor& want) {
  const bool s16 = sizeof(T) == 2;
  const auto& as = a.sizes();
  const auto& bs = b.sizes();
  const size_t rank = as.size();
  const int32_t a_batch = rank == 3 ? as[0] : 1, b_batch = rank == 3 ? bs[0] : 1;
  const int32_t m = as[rank - 2], k = as[rank - 1];
  const int32_t n = c.transposed ? bs[rank - 2] : bs[rank - 1];
  const int32_t batch = a_batch > b_batch ? a_batch : b_batch;
  T* o = want.data<T>();
  for (int32_t bi = 0; bi < batch; ++bi) {
    const T* pa = a.data<T>() + (a_batch == 1 ? 0 : bi) * m * k;
    const T* pb = b.data<T>() + (b_batch == 1 ? 0 : bi) * k * n;
    for (int32_t i = 0; i < m; ++i) {
      for (int32_t j = 0; j < n; ++j) {
        int64_t acc = 0;
        for (int32_t l = 0; l < k; ++l) {
          const int64_t y = c.transposed ? pb[j * k + l] : pb[l * n + j];
          acc += (int64_t{pa[i * k + l]} - c.a_zp) * (y - c.b_zp);
        }
        const int64_t q = reference_rescale(acc, c, s16) + c.out_zp;
        *o++ = static_cast<T>(s16 ? clamp_int16(q) : clamp_int8(q));
      }
    }
  }
}

template <typename T>
void check(const std::vector<int32_t>& a_shape, const std::vector<int32_t>& b_shape, const Bmm& c, uint32_t seed) {
  const bool s16 = sizeof(T) == 2;
  const ScalarType type = s16 ? ScalarType::Short : ScalarType::Char;
  TestTensor a(type, a_shape), b(type, b_shape);
  fill_uniform(a, seed, s16 ? -32767 : -128, s16 ? 32767 : 127);
  fill_uniform(b, seed + 100, s16 ? -32767 : -128, s16 ? 32767 : 127);
  TestTensor want(type, product_shape(a, b, c)), out(type, product_shape(a, b, c));
  reference<T>(a, b, c, want);
  ASSERT_EQ(call(a, b, c, out), Error::Ok);
  EXPECT_TENSOR_EQ(out, want);
}

TEST(QuantizedBmm, BatchesWithTails) {
  // K of 19 and 5: the MVE dot product's 8-lane tails; N of 13 and 7: the 4-lane tails.
  const Bmm c = int8_bmm(-7, 12, 3, 0.0021);
  check<int8_t>({2, 3, 19}, {2, 19, 13}, c, 1);
  check<int8_t>({3, 5, 5}, {3, 5, 7}, c, 2);
  check<int8_t>({1, 1, 64}, {1, 64, 16}, int8_bmm(0, 0, 0, 0.0005), 3);
}

TEST(QuantizedBmm, TransposedRightOperand) {
  Bmm c = int8_bmm(20, -30, -5, 0.0017);
  c.transposed = true;
  check<int8_t>({2, 3, 19}, {2, 13, 19}, c, 4);  // [B, N, K]
  check<int8_t>({4, 7, 8}, {4, 9, 8}, c, 5);
  check<int8_t>({1, 2, 33}, {1, 3, 33}, c, 6);
}

TEST(QuantizedBmm, BroadcastBatchAndRankTwo) {
  Bmm c = int8_bmm(5, -5, 0, 0.003);
  check<int8_t>({1, 4, 6}, {3, 6, 5}, c, 7);
  check<int8_t>({3, 4, 6}, {1, 6, 5}, c, 8);
  check<int8_t>({6, 11}, {11, 10}, c, 9);
  c.transposed = true;
  check<int8_t>({1, 4, 6}, {3, 5, 6}, c, 10);
  check<int8_t>({6, 11}, {10, 11}, c, 11);
}

TEST(QuantizedBmm, ExtremeZeroPointsAndSaturation) {
  // |q - zp| up to 255 on both sides; a scale above 1 saturates at both ends.
  for (bool transposed : {false, true}) {
    Bmm c = int8_bmm(-128, 127, -100, 0.0004);
    c.transposed = transposed;
    check<int8_t>({2, 3, 17}, transposed ? std::vector<int32_t>{2, 6, 17} : std::vector<int32_t>{2, 17, 6}, c, 12);
    Bmm wide = int8_bmm(3, -3, 10, 1.7);
    wide.transposed = transposed;
    check<int8_t>({1, 4, 9}, transposed ? std::vector<int32_t>{1, 5, 9} : std::vector<int32_t>{1, 9, 5}, wide, 13);
  }
}

TEST(QuantizedBmm, LongestSumsFitTheAccumulator) {
  // 33025 products of (127 + 128) * (-128 - 127) = -65025: -2147450625, just inside int32.
  const int32_t k = 33025;
  for (bool transposed : {false, true}) {
    TestTensor a(ScalarType::Char, {1, 1, k}), b(ScalarType::Char, transposed ? std::vector<int32_t>{1, 1, k}
                                                                                : std::vector<int32_t>{1, k, 1});
    for (int32_t i = 0; i < k; ++i) {
      a.data<int8_t>()[i] = 127;
      b.data<int8_t>()[i] = -128;
    }
    Bmm c = int8_bmm(-128, 127, 0, 1.0 / 4194304.0);  // 2^-22: -2147450625 / 2^22 = -511.99 -> saturates
    c.transposed = transposed;
    TestTensor want(ScalarType::Char, {1, 1, 1}), out(ScalarType::Char, {1, 1, 1});
    reference<int8_t>(a, b, c, want);
    ASSERT_EQ(call(a, b, c, out), Error::Ok);
    EXPECT_TENSOR_EQ(out, want);
    EXPECT_EQ(out.data<int8_t>()[0], -128);
    Bmm fine = int8_bmm(-128, 127, 0, 1.0 / 33554432.0);  // 2^-25: -63.998... -> -64
    fine.transposed = transposed;
    ASSERT_EQ(call(a, b, fine, out), Error::Ok);
    EXPECT_EQ(out.data<int8_t>()[0], -64);
  }
}

TEST(QuantizedBmm, HalvesRoundUp) {
  // acc = 1 * {-3, -1, 1, 3} at scale 1/2: halves -1.5, -0.5, 0.5, 1.5 round up to -1, 0, 1, 2.
  for (bool transposed : {false, true}) {
    TestTensor a(ScalarType::Char, {1, 1}), b(ScalarType::Char, transposed ? std::vector<int32_t>{4, 1}
                                                                          : std::vector<int32_t>{1, 4});
    a.data<int8_t>()[0] = 1;
    const int8_t values[] = {-3, -1, 1, 3};
    for (int i = 0; i < 4; ++i) {
      b.data<int8_t>()[i] = values[i];
    }
    Bmm c = int8_bmm(0, 0, 0, 0.5);
    c.transposed = transposed;
    TestTensor out(ScalarType::Char, {1, 4});
    ASSERT_EQ(call(a, b, c, out), Error::Ok);
    const int8_t want[] = {-1, 0, 1, 2};
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ(out.data<int8_t>()[i], want[i]);
    }
  }
}

TEST(QuantizedBmmS16, RandomShapesBothLayouts) {
  const Bmm c = int16_bmm(1.0 / 3e6);
  check<int16_t>({2, 3, 19}, {2, 19, 13}, c, 20);
  check<int16_t>({1, 4, 6}, {3, 6, 5}, c, 21);
  check<int16_t>({6, 11}, {11, 10}, int16_bmm(2.0e-5), 22);
  Bmm t = int16_bmm(7.0e-7);
  t.transposed = true;
  check<int16_t>({2, 5, 37}, {2, 3, 37}, t, 23);
  Bmm wide = int16_bmm(0.01);  // saturates at +-32767, never -32768
  check<int16_t>({1, 3, 8}, {1, 8, 4}, wide, 24);
}

TEST(QuantizedBmmS16, LongSumsAndHalves) {
  // 1000 products of 32767 * -32767: about -2^40, beyond int32, inside int48.
  TestTensor a(ScalarType::Short, {1, 1000}), b(ScalarType::Short, {1000, 1});
  for (int i = 0; i < 1000; ++i) {
    a.data<int16_t>()[i] = 32767;
    b.data<int16_t>()[i] = -32767;
  }
  const Bmm c = int16_bmm(1.0 / 1099511627776.0 * 16384.0);  // 2^-26
  TestTensor want(ScalarType::Short, {1, 1}), out(ScalarType::Short, {1, 1});
  reference<int16_t>(a, b, c, want);
  ASSERT_EQ(call(a, b, c, out), Error::Ok);
  EXPECT_TENSOR_EQ(out, want);
  EXPECT_EQ(out.data<int16_t>()[0], -15999);  // -1073676289000 / 2^26 = -15998.99...
  // The same sum with other transposed ([N, K] = [1, 1000]): Helium's int64 multiply-accumulate path.
  TestTensor bt(ScalarType::Short, {1, 1000});
  for (int i = 0; i < 1000; ++i) {
    bt.data<int16_t>()[i] = -32767;
  }
  Bmm ct = c;
  ct.transposed = true;
  ASSERT_EQ(call(a, bt, ct, out), Error::Ok);
  EXPECT_EQ(out.data<int16_t>()[0], -15999);
  // Halves: acc {-3, -1, 1, 3} at 1/2.
  TestTensor x(ScalarType::Short, {1, 1}), y(ScalarType::Short, {1, 4}), o(ScalarType::Short, {1, 4});
  x.data<int16_t>()[0] = 1;
  const int16_t values[] = {-3, -1, 1, 3};
  for (int i = 0; i < 4; ++i) {
    y.data<int16_t>()[i] = values[i];
  }
  ASSERT_EQ(call(x, y, int16_bmm(0.5), o), Error::Ok);
  const int16_t halves[] = {-1, 0, 1, 2};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(o.data<int16_t>()[i], halves[i]);
  }
}

TEST(QuantizedBmm, RejectsBadArguments) {
  TestTensor a(ScalarType::Char, {2, 3, 4}), b(ScalarType::Char, {2, 4, 5}), out(ScalarType::Char, {2, 3, 5});
  fill_uniform(a, 30, -128, 127);
  fill_uniform(b, 31, -128, 127);
  const Bmm ok = int8_bmm(1, 2, 3, 0.01);
  EXPECT_EQ(call(a, b, ok, out), Error::Ok);
  auto with = [&](auto change) {
    Bmm c = ok;
    change(c);
    return call(a, b, c, out);
  };
  EXPECT_EQ(with([](Bmm& c) { c.a_zp = 128; }), Error::InvalidArgument);
  EXPECT_EQ(with([](Bmm& c) { c.out_zp = -129; }), Error::InvalidArgument);
  EXPECT_EQ(with([](Bmm& c) { c.multiplier = 0; }), Error::InvalidArgument);
  EXPECT_EQ(with([](Bmm& c) { c.shift = 31; }), Error::InvalidArgument);
  EXPECT_EQ(with([](Bmm& c) { c.shift = -32; }), Error::InvalidArgument);
  EXPECT_EQ(with([](Bmm& c) { c.transposed = true; }), Error::InvalidArgument);  // [2, 4, 5] read as N=4, K=5
  TestTensor b_batch3(ScalarType::Char, {3, 4, 5}), b_k5(ScalarType::Char, {2, 5, 5});
  TestTensor rank4(ScalarType::Char, {1, 2, 3, 4}), b16(ScalarType::Short, {2, 4, 5});
  TestTensor floats(ScalarType::Float, {2, 3, 4}), out16(ScalarType::Short, {2, 3, 5});
  EXPECT_EQ(call(a, b_batch3, ok, out), Error::InvalidArgument);  // batches 2 and 3
  EXPECT_EQ(call(a, b_k5, ok, out), Error::InvalidArgument);  // inner sizes 4 and 5
  EXPECT_EQ(call(rank4, b, ok, out), Error::InvalidArgument);
  EXPECT_EQ(call(a, b16, ok, out), Error::InvalidArgument);  // mixed types
  EXPECT_EQ(call(a, b, ok, out16), Error::InvalidArgument);
  EXPECT_EQ(call(floats, b, ok, out), Error::InvalidArgument);
  // One product more than int32 holds at the extremes.
  TestTensor long_a(ScalarType::Char, {1, 33026}), long_b(ScalarType::Char, {33026, 1}), one(ScalarType::Char, {1, 1});
  EXPECT_EQ(call(long_a, long_b, ok, one), Error::InvalidArgument);
}

TEST(QuantizedBmmS16, RejectsOffsetsAndWideMultipliers) {
  TestTensor a(ScalarType::Short, {3, 4}), b(ScalarType::Short, {4, 5}), out(ScalarType::Short, {3, 5});
  fill_uniform(a, 40, -32767, 32767);
  fill_uniform(b, 41, -32767, 32767);
  const Bmm ok = int16_bmm(1e-6);
  EXPECT_EQ(call(a, b, ok, out), Error::Ok);
  Bmm offset = ok;
  offset.b_zp = 1;  // int16 is symmetric
  EXPECT_EQ(call(a, b, offset, out), Error::InvalidArgument);
  Bmm wide = ok;
  wide.multiplier += 1;  // a 32-bit multiplier: not an int48 RESCALE's
  EXPECT_EQ(call(a, b, wide, out), Error::InvalidArgument);
  Bmm shifted = ok;
  shifted.shift = 14;
  EXPECT_EQ(call(a, b, shifted, out), Error::InvalidArgument);
}

}  // namespace
