// The kernel harness itself: tensor layouts and values, the random fill, broadcasting, and
// what a KernelCall hands the kernel (checked by a probe kernel this test registers).
#include <cstring>

#include <executorch/runtime/kernel/kernel_runtime_context.h>

#include "kernels/testing/harness.h"

namespace {

using namespace etarm::kernels::testing;
using executorch::runtime::KernelRuntimeContext;
using executorch::runtime::Span;

TEST(TestTensor, ChannelsLastLayout) {
  TestTensor t(ScalarType::Int, {1, 3, 2, 2}, {0, 2, 3, 1});
  t.set<int32_t>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});  // logical (row-major) order
  // In memory, channels vary fastest: (h, w) = (0, 0) holds channels 0, 1, 2 = values 0, 4, 8.
  const int32_t* memory = t.data<int32_t>();
  EXPECT_EQ(memory[0], 0);
  EXPECT_EQ(memory[1], 4);
  EXPECT_EQ(memory[2], 8);
  EXPECT_EQ(memory[3], 1);
  EXPECT_EQ(t.at<int32_t>({0, 2, 1, 1}), 11);
  EXPECT_EQ(t.tensor().strides()[1], 1);
  EXPECT_EQ(t.numel(), 12u);
}

TEST(Fill, DeterministicAndInRange) {
  TestTensor a(ScalarType::Float, {64}), b(ScalarType::Float, {64}), c(ScalarType::Float, {64});
  fill_uniform(a, 7, -1, 1);
  fill_uniform(b, 7, -1, 1);
  fill_uniform(c, 8, -1, 1);
  EXPECT_EQ(std::memcmp(a.data<float>(), b.data<float>(), 64 * sizeof(float)), 0);
  EXPECT_NE(std::memcmp(a.data<float>(), c.data<float>(), 64 * sizeof(float)), 0);
  for (int i = 0; i < 64; ++i) {
    EXPECT_GE(a.data<float>()[i], -1.0f);
    EXPECT_LT(a.data<float>()[i], 1.0f);
  }
  TestTensor bits(ScalarType::Byte, {200});
  fill_uniform(bits, 9, 3, 4);  // integers: both ends included
  int seen[2] = {0, 0};
  for (int i = 0; i < 200; ++i) {
    const uint8_t v = bits.data<uint8_t>()[i];
    ASSERT_TRUE(v == 3 || v == 4);
    ++seen[v - 3];
  }
  EXPECT_GT(seen[0], 0);
  EXPECT_GT(seen[1], 0);
}

TEST(Broadcast, ValueAtAnOutputIndex) {
  TestTensor column(ScalarType::Float, {3, 1});
  column.set<float>({10, 20, 30});
  TestTensor out(ScalarType::Float, {2, 3, 4});
  const Index i = out.make_index({1, 2, 3});
  EXPECT_EQ(broadcast_value(column, i), 30.0);
  TestTensor scalar(ScalarType::Float, {});
  scalar.set<float>({5});
  EXPECT_EQ(broadcast_value(scalar, i), 5.0);
}

// What the probe kernel saw.
struct Seen {
  size_t stack_size = 0;
  bool out_is_returned = false;
  int64_t list[3] = {};
  size_t list_size = 0;
  size_t tensors = 0;
  double real = 0;
  int64_t integer = 0;
  bool boolean = false;
  bool none = false;
} g_seen;

// etarm_test::probe.out(Tensor self, int[] list, Tensor[] tensors, float real, int integer,
//                       bool flag, Tensor? nothing, *, Tensor(a!) out): records its stack,
// fails with InvalidType when `integer` is 13.
void probe(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  g_seen = Seen();
  g_seen.stack_size = stack.size();
  if (stack.size() != 9) return;
  g_seen.out_is_returned = stack[7] == stack[8] && stack[8]->isTensor();
  auto list = stack[1]->toIntList();
  g_seen.list_size = list.size();
  for (size_t i = 0; i < list.size() && i < 3; ++i) g_seen.list[i] = list[i];
  g_seen.tensors = stack[2]->toTensorList().size();
  g_seen.real = stack[3]->toDouble();
  g_seen.integer = stack[4]->toInt();
  g_seen.boolean = stack[5]->toBool();
  g_seen.none = stack[6]->isNone();
  if (g_seen.integer == 13) ctx.fail(Error::InvalidType);
}

const bool g_registered =
    executorch::runtime::register_kernel(executorch::runtime::Kernel("etarm_test::probe.out", probe)) == Error::Ok;

Error call_probe(int64_t integer) {
  TestTensor a(ScalarType::Float, {2}), b(ScalarType::Float, {3}), out(ScalarType::Float, {2});
  return KernelCall("etarm_test::probe.out")
      .tensor(a).ints({4, -5, 6}).tensors({&a, &b}).real(0.25).integer(integer).boolean(true).none()
      .out(out).run();
}

TEST(KernelCall, StackAsAMethodBuildsIt) {
  ASSERT_TRUE(g_registered);
  ASSERT_EQ(call_probe(7), Error::Ok);
  EXPECT_EQ(g_seen.stack_size, 9u);  // 8 arguments and the returned out tensor
  EXPECT_TRUE(g_seen.out_is_returned);
  EXPECT_EQ(g_seen.list_size, 3u);
  EXPECT_EQ(g_seen.list[0], 4);
  EXPECT_EQ(g_seen.list[1], -5);
  EXPECT_EQ(g_seen.list[2], 6);
  EXPECT_EQ(g_seen.tensors, 2u);
  EXPECT_EQ(g_seen.real, 0.25);
  EXPECT_EQ(g_seen.integer, 7);
  EXPECT_TRUE(g_seen.boolean);
  EXPECT_TRUE(g_seen.none);
}

TEST(KernelCall, ReturnsTheKernelsFailure) {
  EXPECT_EQ(call_probe(13), Error::InvalidType);
}

TEST(KernelCall, MissingOperator) {
  TestTensor out(ScalarType::Float, {1});
  EXPECT_EQ(KernelCall("etarm_test::absent.out").out(out).run(), Error::OperatorMissing);
}

TEST(ExpectTensor, MatchesWithinTolerance) {
  TestTensor a(ScalarType::Float, {3}), b(ScalarType::Float, {3});
  a.set<float>({1.0f, NAN, -2.0f});
  b.set<float>({1.00001f, NAN, -2.0f});
  EXPECT_TENSOR_CLOSE(a, b, 1e-4, 0);
}

}  // namespace
