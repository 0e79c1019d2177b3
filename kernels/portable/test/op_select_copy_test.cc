// aten::select_copy.int_out: the slice at index along dim (negative: from the end), that dim removed; any dtype.
#include "kernels/testing/harness.h"

namespace {

using namespace etarm::kernels::testing;

void check_select(ScalarType dtype, std::vector<int32_t> shape, int64_t dim, int64_t index, std::vector<int32_t> out_shape) {
  TestTensor in(dtype, shape), out(dtype, out_shape), want(dtype, out_shape);
  fill_uniform(in, 41, -100, 100);
  ASSERT_EQ(KernelCall("aten::select_copy.int_out").tensor(in).integer(dim).integer(index).out(out).run(), Error::Ok);
  const int rank = static_cast<int>(shape.size());
  const int d = static_cast<int>(dim < 0 ? dim + rank : dim);
  const int32_t at = static_cast<int32_t>(index < 0 ? index + shape[d] : index);
  compute(want, [&](const Index& i) {
    Index source;
    source.rank = rank;
    for (int k = 0, j = 0; k < rank; ++k) {
      source.at[k] = k == d ? at : i[j++];
    }
    return value_at(in, source);
  });
  EXPECT_TENSOR_EQ(out, want);
}

TEST(SelectCopy, LastStepOfASequence) {
  check_select(ScalarType::Char, {1, 49, 128}, 1, -1, {1, 128});
}

TEST(SelectCopy, EveryDim) {
  check_select(ScalarType::Float, {3, 4, 5}, 0, 2, {4, 5});
  check_select(ScalarType::Short, {3, 4, 5}, 1, 0, {3, 5});
  check_select(ScalarType::Int, {3, 4, 5}, -1, 3, {3, 4});
  check_select(ScalarType::Char, {7}, 0, 6, {});
}

TEST(SelectCopy, RejectsBadArguments) {
  TestTensor in(ScalarType::Char, {2, 5}), out(ScalarType::Char, {5}), wrong(ScalarType::Char, {2});
  EXPECT_EQ(KernelCall("aten::select_copy.int_out").tensor(in).integer(0).integer(2).out(out).run(), Error::InvalidArgument);
  EXPECT_EQ(KernelCall("aten::select_copy.int_out").tensor(in).integer(0).integer(-3).out(out).run(), Error::InvalidArgument);
  EXPECT_EQ(KernelCall("aten::select_copy.int_out").tensor(in).integer(2).integer(0).out(out).run(), Error::InvalidArgument);
  EXPECT_EQ(KernelCall("aten::select_copy.int_out").tensor(in).integer(0).integer(0).out(wrong).run(), Error::InvalidArgument);
}

}  // namespace
