// aten::slice_copy.Tensor_out: out[..., j, ...] = self[..., start + j * step, ...] along dim, with Python's slice
// bounds (negative from the end, clamped), any dtype.
#include "kernels/testing/harness.h"

namespace {

using namespace etarm::kernels::testing;

void check_slice(ScalarType dtype, std::vector<int32_t> shape, int64_t dim, int64_t start, int64_t step,
                 std::vector<int32_t> out_shape, bool start_given = true) {
  TestTensor in(dtype, shape), out(dtype, out_shape), want(dtype, out_shape);
  fill_uniform(in, 31, -100, 100);
  KernelCall call("aten::slice_copy.Tensor_out");
  call.tensor(in).integer(dim);
  if (start_given) {
    call.integer(start);
  } else {
    call.none();
  }
  // The end as None: out_shape's size along dim says how many are taken.
  ASSERT_EQ(call.none().integer(step).out(out).run(), Error::Ok);
  const int d = static_cast<int>(dim < 0 ? dim + static_cast<int64_t>(shape.size()) : dim);
  const int64_t first = start < 0 ? start + shape[d] : start;
  compute(want, [&](const Index& i) {
    Index source = i;
    source.at[d] = static_cast<int32_t>(first + i[d] * step);
    return value_at(in, source);
  });
  EXPECT_TENSOR_EQ(out, want);
}

TEST(SliceCopy, GatesOfAnInt8Row) {
  check_slice(ScalarType::Char, {1, 512}, 1, 256, 1, {1, 256});
}

TEST(SliceCopy, StepsAndNegativeStarts) {
  check_slice(ScalarType::Float, {3, 10, 4}, 1, 1, 3, {3, 3, 4});
  check_slice(ScalarType::Short, {3, 10, 4}, -2, -4, 2, {3, 2, 4});
  check_slice(ScalarType::Int, {6, 2}, 0, 0, 4, {2, 2}, /*start_given=*/false);
}

TEST(SliceCopy, EndsClampedAndEmpty) {
  TestTensor in(ScalarType::Char, {2, 5}), out(ScalarType::Char, {2, 2}), empty(ScalarType::Char, {2, 0});
  fill_uniform(in, 32, -128, 127);
  ASSERT_EQ(KernelCall("aten::slice_copy.Tensor_out").tensor(in).integer(1).integer(3).integer(100).integer(1).out(out).run(),
            Error::Ok);
  TestTensor want(ScalarType::Char, {2, 2});
  compute(want, [&](const Index& i) {
    Index source = i;
    source.at[1] += 3;
    return value_at(in, source);
  });
  EXPECT_TENSOR_EQ(out, want);
  ASSERT_EQ(KernelCall("aten::slice_copy.Tensor_out").tensor(in).integer(1).integer(4).integer(2).integer(1).out(empty).run(),
            Error::Ok);
}

TEST(SliceCopy, RejectsBadArguments) {
  TestTensor in(ScalarType::Char, {2, 5}), out(ScalarType::Char, {2, 2}), wrong(ScalarType::Short, {2, 2});
  EXPECT_EQ(KernelCall("aten::slice_copy.Tensor_out").tensor(in).integer(2).integer(0).integer(2).integer(1).out(out).run(),
            Error::InvalidArgument);
  EXPECT_EQ(KernelCall("aten::slice_copy.Tensor_out").tensor(in).integer(1).integer(0).integer(2).integer(0).out(out).run(),
            Error::InvalidArgument);
  EXPECT_EQ(KernelCall("aten::slice_copy.Tensor_out").tensor(in).integer(1).integer(0).integer(2).integer(1).out(wrong).run(),
            Error::InvalidArgument);
  EXPECT_EQ(KernelCall("aten::slice_copy.Tensor_out").tensor(in).integer(1).real(0.5).integer(2).integer(1).out(out).run(),
            Error::InvalidArgument);
}

}  // namespace
