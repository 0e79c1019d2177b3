// cortex_m::pad.out against a plain reference: each output element is the input's at (index - before) when that lies
// inside the input, else the pad value; any rank, pads on any side of any dim; int8 and int16 (a16w8) data.
#include <cstdint>
#include <vector>

#include "kernels/testing/harness.h"

namespace {

using namespace etarm::kernels::testing;

constexpr const char* kOp = "cortex_m::pad.out";

Error call(TestTensor& input, const std::vector<int64_t>& before, const std::vector<int64_t>& after, int64_t value,
           TestTensor& out) {
  return KernelCall(kOp).tensor(input).ints(before).ints(after).integer(value).out(out).run();
}

// T: int8_t or int16_t, the data's type.
template <typename T = int8_t>
void check(const std::vector<int32_t>& shape, const std::vector<int64_t>& before, const std::vector<int64_t>& after,
           int32_t value, uint32_t seed) {
  const bool s16 = sizeof(T) == 2;
  const ScalarType type = s16 ? ScalarType::Short : ScalarType::Char;
  TestTensor input(type, shape);
  fill_uniform(input, seed, s16 ? -32767 : -128, s16 ? 32767 : 127);
  std::vector<int32_t> sizes(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    sizes[d] = shape[d] + static_cast<int32_t>(before[d] + after[d]);
  }
  TestTensor out(type, sizes), want(type, sizes);
  ASSERT_EQ(call(input, before, after, value, out), Error::Ok);
  std::vector<int32_t> index(sizes.size(), 0);
  for (size_t i = 0; i < want.numel(); ++i) {
    // index: the output element i's coordinates; the input's are index - before.
    size_t rest = i, from = 0;
    bool inside = true;
    for (size_t d = sizes.size(); d-- > 0;) {
      index[d] = static_cast<int32_t>(rest % sizes[d]);
      rest /= sizes[d];
    }
    for (size_t d = 0; d < sizes.size(); ++d) {
      const int64_t at = index[d] - before[d];
      inside = inside && at >= 0 && at < shape[d];
      from = from * shape[d] + static_cast<size_t>(inside ? at : 0);
    }
    want.data<T>()[i] = inside ? input.data<T>()[from] : static_cast<T>(value);
  }
  EXPECT_TENSOR_EQ(out, want);
}

TEST(Pad, ImageNhwc) {
  check({1, 5, 6, 3}, {0, 0, 1, 0}, {0, 1, 2, 0}, -17, 1);  // ZeroPad2d((1, 2, 0, 1)) on NHWC data
  check({2, 3, 4, 5}, {1, 2, 0, 3}, {0, 1, 1, 2}, 0, 2);     // every dim, batches
}

TEST(Pad, OtherRanks) {
  check({7}, {3}, {2}, 127, 3);
  check({2, 3, 10}, {0, 1, 2}, {1, 0, 0}, -128, 4);
  check({2, 1, 2, 1, 3}, {0, 1, 0, 2, 0}, {1, 0, 1, 0, 1}, 5, 5);
}

TEST(Pad, Int16ImagesAndOtherRanks) {
  check<int16_t>({1, 5, 6, 3}, {0, 0, 1, 0}, {0, 1, 2, 0}, -1234, 11);
  check<int16_t>({2, 3, 4, 5}, {1, 2, 0, 3}, {0, 1, 1, 2}, 0, 12);
  check<int16_t>({7}, {3}, {2}, 32767, 13);
  check<int16_t>({2, 1, 2, 1, 3}, {0, 1, 0, 2, 0}, {1, 0, 1, 0, 1}, -32767, 14);
}

TEST(Pad, Int16RejectsWideValuesAndMixedTypes) {
  TestTensor input(ScalarType::Short, {2, 3}), out(ScalarType::Short, {3, 3}), int8_out(ScalarType::Char, {3, 3});
  EXPECT_EQ(call(input, {1, 0}, {0, 0}, 300, out), Error::Ok);  // beyond int8, within int16
  EXPECT_EQ(call(input, {1, 0}, {0, 0}, -32768, out), Error::InvalidArgument);  // beyond the symmetric range
  EXPECT_EQ(call(input, {1, 0}, {0, 0}, 0, int8_out), Error::InvalidArgument);
}

TEST(Pad, NoPadIsACopy) {
  check({3, 4}, {0, 0}, {0, 0}, 9, 6);
}

TEST(Pad, RejectsBadArguments) {
  TestTensor input(ScalarType::Char, {2, 3});
  fill_uniform(input, 7, -128, 127);
  TestTensor out(ScalarType::Char, {3, 3});
  EXPECT_EQ(call(input, {1, 0}, {0, 0}, 0, out), Error::Ok);
  EXPECT_EQ(call(input, {-1, 0}, {0, 0}, 0, out), Error::InvalidArgument);  // a crop
  EXPECT_EQ(call(input, {1}, {0}, 0, out), Error::InvalidArgument);         // pads of another rank
  EXPECT_EQ(call(input, {1, 0}, {0, 0}, 200, out), Error::InvalidArgument);  // beyond int8
  TestTensor floats(ScalarType::Float, {2, 3});
  EXPECT_EQ(call(floats, {1, 0}, {0, 0}, 0, out), Error::InvalidArgument);
  TestTensor rank_three(ScalarType::Char, {1, 3, 3});
  EXPECT_EQ(call(input, {1, 0}, {0, 0}, 0, rank_three), Error::InvalidArgument);
}

}  // namespace
