// cortex_m::quantized_table.out against a plain reference: every int8 input read from a 256-entry table; int16 inputs
// (the extremes, every segment's ends and middle) interpolated in a 513-entry table as TOSA's int16 TABLE followed by
// its rescale by 2^-7, rounding half up; patched segments of a 1025 + 128 k table read their exact results; int16
// inputs read from a 65536-entry table; -32768 raised to -32767; empty inputs; rejected tables, slots, types, shapes.
#include <cstdint>
#include <vector>

#include "kernels/testing/harness.h"

namespace {

using namespace etarm::kernels::testing;

constexpr const char* kOp = "cortex_m::quantized_table.out";

Error call(TestTensor& input, TestTensor& table, TestTensor& out) {
  return KernelCall(kOp).tensor(input).tensor(table).out(out).run();
}

// TOSA's int16 TABLE of `table` at `x` then RESCALE by 2^-7 (half up), written with int64 floor division.
int64_t interpolated(const TestTensor& table, int64_t x) {
  const int64_t offset = x + 32768;
  const int64_t base = table.data<int16_t>()[offset / 128];
  const int64_t next = table.data<int16_t>()[offset / 128 + 1];
  const int64_t numerator = base * 128 + (next - base) * (offset % 128) + 64;
  const int64_t floor = numerator >= 0 ? numerator / 128 : -((-numerator + 127) / 128);
  return floor < -32767 ? -32767 : floor;
}

TEST(QuantizedTable, EveryInt8InputReadsItsEntry) {
  TestTensor table(ScalarType::Char, {256});
  fill_uniform(table, 1, -128, 127);
  TestTensor input(ScalarType::Char, {2, 128}), out(ScalarType::Char, {2, 128}), want(ScalarType::Char, {2, 128});
  for (int32_t q = -128; q < 128; ++q) {
    input.data<int8_t>()[q + 128] = static_cast<int8_t>(q);
    want.data<int8_t>()[q + 128] = table.data<int8_t>()[q + 128];
  }
  ASSERT_EQ(call(input, table, out), Error::Ok);
  EXPECT_TENSOR_EQ(out, want);
  EXPECT_EQ(out.data<int8_t>()[0], table.data<int8_t>()[0]);      // -128: the first entry
  EXPECT_EQ(out.data<int8_t>()[255], table.data<int8_t>()[255]);  // 127: the last
}

TEST(QuantizedTable, Int8AnyRank) {
  TestTensor table(ScalarType::Char, {256});
  fill_uniform(table, 2, -128, 127);
  TestTensor input(ScalarType::Char, {1, 3, 5, 7, 2}), out(ScalarType::Char, {1, 3, 5, 7, 2});
  TestTensor want(ScalarType::Char, {1, 3, 5, 7, 2});
  fill_uniform(input, 3, -128, 127);
  for (size_t i = 0; i < input.numel(); ++i) {
    want.data<int8_t>()[i] = table.data<int8_t>()[input.data<int8_t>()[i] + 128];
  }
  ASSERT_EQ(call(input, table, out), Error::Ok);
  EXPECT_TENSOR_EQ(out, want);
  TestTensor other_rank(ScalarType::Char, {210});
  EXPECT_EQ(call(input, table, other_rank), Error::InvalidArgument);
  TestTensor empty(ScalarType::Char, {0, 4}), empty_out(ScalarType::Char, {0, 4});
  EXPECT_EQ(call(empty, table, empty_out), Error::Ok);
}

TEST(QuantizedTable, Int16InterpolatesAsTosa) {
  TestTensor table(ScalarType::Short, {513});
  fill_uniform(table, 4, -32767, 32767);
  std::vector<int16_t> values = {-32768, -32767, -32767 + 63, -32767 + 64, -2, -1, 0, 1, 63, 64, 65, 127, 128, 32766,
                                 32767};
  for (int32_t segment = 0; segment < 512; ++segment) {  // each segment's first, middle and last input
    for (int32_t at : {0, 64, 127}) {
      values.push_back(static_cast<int16_t>(-32768 + segment * 128 + at));
    }
  }
  const int32_t n = static_cast<int32_t>(values.size());
  TestTensor input(ScalarType::Short, {n}), out(ScalarType::Short, {n}), want(ScalarType::Short, {n});
  for (int32_t i = 0; i < n; ++i) {
    input.data<int16_t>()[i] = values[i];
    want.data<int16_t>()[i] = static_cast<int16_t>(interpolated(table, values[i]));
  }
  ASSERT_EQ(call(input, table, out), Error::Ok);
  EXPECT_TENSOR_EQ(out, want);
  EXPECT_EQ(out.data<int16_t>()[6], table.data<int16_t>()[256]);  // an input on an entry (0) reads it unchanged
}

TEST(QuantizedTable, Int16InterpolationByHand) {
  TestTensor table(ScalarType::Short, {513});
  table.data<int16_t>()[256] = 0;  // inputs 0 ..
  table.data<int16_t>()[257] = 100;  // .. 128
  table.data<int16_t>()[258] = -101;  // .. 256: a falling segment
  table.data<int16_t>()[0] = -32768;  // inputs -32768 .. -32641 from the lowest int16
  table.data<int16_t>()[1] = -32768;
  TestTensor input(ScalarType::Short, {7}), out(ScalarType::Short, {7});
  input.set<int16_t>({64, 65, 1, 192, 193, -32768, -32700});
  ASSERT_EQ(call(input, table, out), Error::Ok);
  // 64: 100 * 64 / 128 = 50; 65: 50.78 -> 51; 1: 0.78 -> 1; 192: 100 - 201 / 2 = -0.5 -> 0 (half up);
  // 193: -2.07 -> -2; the lowest entries give -32768, written as -32767.
  const std::vector<int16_t> expected = {50, 51, 1, 0, -2, -32767, -32767};
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(out.data<int16_t>()[i], expected[i]);
  }
}

TEST(QuantizedTable, Int16ExactTable) {
  TestTensor table(ScalarType::Short, {65536});
  for (int32_t i = 0; i < 65536; ++i) {  // a step function no interpolation follows, with the lowest value
    table.data<int16_t>()[i] = static_cast<int16_t>(i % 3 == 0 ? -32768 : (i * 7919) % 65535 - 32767);
  }
  TestTensor input(ScalarType::Short, {4, 1024}), out(ScalarType::Short, {4, 1024}), want(ScalarType::Short, {4, 1024});
  fill_uniform(input, 5, -32768, 32767);
  input.data<int16_t>()[0] = -32768;
  input.data<int16_t>()[1] = 32767;
  for (size_t i = 0; i < input.numel(); ++i) {
    const int16_t found = table.data<int16_t>()[input.data<int16_t>()[i] + 32768];
    want.data<int16_t>()[i] = found < -32767 ? static_cast<int16_t>(-32767) : found;
  }
  ASSERT_EQ(call(input, table, out), Error::Ok);
  EXPECT_TENSOR_EQ(out, want);
}

// A patched table: 513 entries, 512 segment slots, then 128 exact results per patched segment.
TEST(QuantizedTable, Int16PatchedSegmentsReadTheirResults) {
  const std::vector<int32_t> patched = {0, 255, 256, 511};  // the lowest and highest segments, both sides of 0
  const int32_t entries = 1025 + 128 * static_cast<int32_t>(patched.size());
  TestTensor table(ScalarType::Short, {entries});
  fill_uniform(table, 8, -32768, 32767);
  for (int32_t segment = 0; segment < 512; ++segment) {
    table.data<int16_t>()[513 + segment] = -1;
  }
  for (size_t j = 0; j < patched.size(); ++j) {
    table.data<int16_t>()[513 + patched[j]] = static_cast<int16_t>(j);
  }
  std::vector<int16_t> values;
  for (int32_t segment : {0, 1, 254, 255, 256, 257, 510, 511}) {  // each patched segment and one beside it, whole
    for (int32_t at = 0; at < 128; ++at) {
      values.push_back(static_cast<int16_t>(-32768 + segment * 128 + at));
    }
  }
  const int32_t n = static_cast<int32_t>(values.size());
  TestTensor input(ScalarType::Short, {n}), out(ScalarType::Short, {n}), want(ScalarType::Short, {n});
  for (int32_t i = 0; i < n; ++i) {
    input.data<int16_t>()[i] = values[i];
    const int32_t offset = values[i] + 32768;
    int64_t expected = interpolated(table, values[i]);
    for (size_t j = 0; j < patched.size(); ++j) {
      if (offset / 128 == patched[j]) {
        expected = table.data<int16_t>()[1025 + 128 * static_cast<int32_t>(j) + offset % 128];
      }
    }
    want.data<int16_t>()[i] = static_cast<int16_t>(expected < -32767 ? -32767 : expected);
  }
  ASSERT_EQ(call(input, table, out), Error::Ok);
  EXPECT_TENSOR_EQ(out, want);
  table.data<int16_t>()[513 + 7] = static_cast<int16_t>(patched.size());  // no such patch
  EXPECT_EQ(call(input, table, out), Error::InvalidArgument);
  table.data<int16_t>()[513 + 7] = -2;
  EXPECT_EQ(call(input, table, out), Error::InvalidArgument);
  TestTensor no_patch(ScalarType::Short, {1025}), partial_patch(ScalarType::Short, {1025 + 127});
  EXPECT_EQ(call(input, no_patch, out), Error::InvalidArgument);
  EXPECT_EQ(call(input, partial_patch, out), Error::InvalidArgument);
}

TEST(QuantizedTable, RejectsBadArguments) {
  TestTensor s8(ScalarType::Char, {2, 3}), s8_out(ScalarType::Char, {2, 3});
  TestTensor s16(ScalarType::Short, {2, 3}), s16_out(ScalarType::Short, {2, 3});
  fill_uniform(s8, 6, -128, 127);
  fill_uniform(s16, 7, -32767, 32767);
  TestTensor s8_table(ScalarType::Char, {256}), s16_table(ScalarType::Short, {513});
  EXPECT_EQ(call(s8, s8_table, s8_out), Error::Ok);
  EXPECT_EQ(call(s16, s16_table, s16_out), Error::Ok);
  TestTensor short_table(ScalarType::Char, {255}), long_table(ScalarType::Char, {257});
  EXPECT_EQ(call(s8, short_table, s8_out), Error::InvalidArgument);
  EXPECT_EQ(call(s8, long_table, s8_out), Error::InvalidArgument);
  EXPECT_EQ(call(s8, s16_table, s8_out), Error::InvalidArgument);  // the table's type is not the input's
  EXPECT_EQ(call(s16, s8_table, s16_out), Error::InvalidArgument);
  TestTensor s16_512(ScalarType::Short, {512}), s16_256(ScalarType::Short, {256}), s16_2d(ScalarType::Short, {1, 513});
  EXPECT_EQ(call(s16, s16_512, s16_out), Error::InvalidArgument);
  EXPECT_EQ(call(s16, s16_256, s16_out), Error::InvalidArgument);
  EXPECT_EQ(call(s16, s16_2d, s16_out), Error::InvalidArgument);
  EXPECT_EQ(call(s8, s8_table, s16_out), Error::InvalidArgument);  // the output's type is not the input's
  EXPECT_EQ(call(s16, s16_table, s8_out), Error::InvalidArgument);
  TestTensor floats(ScalarType::Float, {2, 3}), float_table(ScalarType::Float, {256});
  EXPECT_EQ(call(floats, float_table, floats), Error::InvalidArgument);
  TestTensor int32s(ScalarType::Int, {2, 3}), int32_table(ScalarType::Int, {256});
  EXPECT_EQ(call(int32s, int32_table, int32s), Error::InvalidArgument);
  TestTensor channels_last(ScalarType::Char, {1, 2, 2, 3}, {0, 2, 3, 1}), out4(ScalarType::Char, {1, 2, 2, 3});
  EXPECT_EQ(call(channels_last, s8_table, out4), Error::InvalidArgument);
}

}  // namespace
