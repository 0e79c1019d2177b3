// cortex_m::transpose.out (written in the project: the CMSIS-NN snapshot has no arm_transpose_s8) against the
// definition of a permute: out[i] = in[j] with j[perm[k]] = i[k]. The int8 (or int16: a16w8) values move unchanged.
#include <cstdint>
#include <vector>

#include "kernels/testing/harness.h"

namespace {

using namespace etarm::kernels::testing;

constexpr const char* kOp = "cortex_m::transpose.out";

Error call(TestTensor& in, const std::vector<int64_t>& perm, TestTensor& out) {
  return KernelCall(kOp).tensor(in).ints(perm).out(out).run();
}

void check(const std::vector<int32_t>& in_sizes, const std::vector<int64_t>& perm, uint32_t seed,
           ScalarType type = ScalarType::Char) {
  TestTensor in(type, in_sizes);
  fill_uniform(in, seed, type == ScalarType::Char ? -128 : -32768, type == ScalarType::Char ? 127 : 32767);
  std::vector<int32_t> out_sizes;
  for (int64_t d : perm) {
    out_sizes.push_back(in_sizes[d]);
  }
  TestTensor out(type, out_sizes), want(type, out_sizes);
  ASSERT_EQ(call(in, perm, out), Error::Ok);
  compute(want, [&](const Index& i) {
    Index j = i;
    for (size_t k = 0; k < perm.size(); ++k) {
      j.at[perm[k]] = i[static_cast<int>(k)];
    }
    return value_at(in, j);
  });
  EXPECT_TENSOR_EQ(out, want);
}

TEST(Transpose, PermutesEveryRankUpToFour) {
  check({5}, {0}, 1);
  check({3, 7}, {1, 0}, 2);
  check({2, 3, 5}, {2, 0, 1}, 3);
  check({2, 3, 4, 5}, {0, 2, 3, 1}, 4);  // NCHW -> NHWC
  check({2, 3, 4, 5}, {0, 3, 1, 2}, 5);  // NHWC -> NCHW
  check({2, 3, 4, 5}, {3, 2, 1, 0}, 6);
  check({2, 3, 4, 5}, {0, 1, 2, 3}, 7);
  check({0, 3, 4}, {1, 2, 0}, 8);
}

TEST(Transpose, MovesTheExtremesUnchanged) {
  TestTensor in(ScalarType::Char, {2, 2}), out(ScalarType::Char, {2, 2}), want(ScalarType::Char, {2, 2});
  in.set<int8_t>({-128, 127, 0, -1});
  ASSERT_EQ(call(in, {1, 0}, out), Error::Ok);
  want.set<int8_t>({-128, 0, 127, -1});
  EXPECT_TENSOR_EQ(out, want);
}

TEST(Transpose, RejectsBadArguments) {
  TestTensor in(ScalarType::Char, {2, 3}), out(ScalarType::Char, {3, 2});
  TestTensor f(ScalarType::Float, {2, 3}), f_out(ScalarType::Float, {3, 2});
  TestTensor five(ScalarType::Char, {1, 1, 1, 2, 3}), five_out(ScalarType::Char, {1, 1, 1, 3, 2});
  TestTensor nhwc(ScalarType::Char, {1, 2, 3, 1}, {0, 2, 3, 1}), nhwc_out(ScalarType::Char, {1, 1, 2, 3});
  EXPECT_EQ(call(f, {1, 0}, f_out), Error::InvalidArgument);  // float
  EXPECT_EQ(call(in, {1, 0}, f_out), Error::InvalidArgument);  // float out
  TestTensor short_out(ScalarType::Short, {3, 2});
  EXPECT_EQ(call(in, {1, 0}, short_out), Error::InvalidArgument);  // int8 in, int16 out
  EXPECT_EQ(call(in, {0, 0}, out), Error::InvalidArgument);  // not a permutation
  EXPECT_EQ(call(in, {1, 2}, out), Error::InvalidArgument);  // dim out of range
  EXPECT_EQ(call(in, {-1, 0}, out), Error::InvalidArgument);  // negative dims are the compiler's to wrap
  EXPECT_EQ(call(in, {1}, out), Error::InvalidArgument);  // perm of another rank
  EXPECT_EQ(call(five, {0, 1, 2, 4, 3}, five_out), Error::InvalidArgument);  // rank 5
  EXPECT_EQ(call(nhwc, {0, 3, 1, 2}, nhwc_out), Error::InvalidArgument);  // not contiguous
  EXPECT_EQ(KernelCall(kOp).tensor(in).out(out).run(), Error::InvalidArgument);  // no perm
  EXPECT_EQ(KernelCall(kOp).tensor(in).integer(1).out(out).run(), Error::InvalidArgument);  // perm not a list
}

TEST(Transpose, PermutesInt16) {
  check({2, 3, 4, 5}, {0, 2, 3, 1}, 9, ScalarType::Short);  // NCHW -> NHWC
  check({2, 3, 4, 5}, {0, 3, 1, 2}, 10, ScalarType::Short);  // NHWC -> NCHW
  check({3, 7}, {1, 0}, 11, ScalarType::Short);
}

}  // namespace
