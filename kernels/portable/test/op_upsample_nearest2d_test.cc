// aten::upsample_nearest2d.vec_out: each output pixel copies the input pixel torch's nearest mode picks. The source
// indices below are what torch.nn.functional.interpolate(mode="nearest") and aten.upsample_nearest2d.vec pick.
#include "kernels/testing/harness.h"

namespace {

using namespace etarm::kernels::testing;

// want[n, c, y, x] = in[n, c, rows[y], cols[x]]
void expect_picks(TestTensor& in, TestTensor& out, const std::vector<int>& rows, const std::vector<int>& cols) {
  TestTensor want(out.dtype(), {in.sizes()[0], in.sizes()[1], static_cast<int32_t>(rows.size()),
                                 static_cast<int32_t>(cols.size())});
  compute(want, [&](const Index& i) {
    Index source = i;
    source.at[2] = rows[i[2]];
    source.at[3] = cols[i[3]];
    return value_at(in, source);
  });
  EXPECT_TENSOR_EQ(out, want);
}

TEST(UpsampleNearest2d, ScaleFactorTwoOnInt8) {
  TestTensor in(ScalarType::Char, {1, 3, 2, 3}), out(ScalarType::Char, {1, 3, 4, 6});
  fill_uniform(in, 7, -128, 127);
  ASSERT_EQ(KernelCall("aten::upsample_nearest2d.vec_out").tensor(in).none().reals({2.0, 2.0}).out(out).run(), Error::Ok);
  expect_picks(in, out, {0, 0, 1, 1}, {0, 0, 1, 1, 2, 2});
}

TEST(UpsampleNearest2d, FractionalScaleFactors) {
  TestTensor in(ScalarType::Float, {2, 2, 5, 3}), out(ScalarType::Float, {2, 2, 2, 7});
  fill_uniform(in, 8, -10, 10);
  ASSERT_EQ(KernelCall("aten::upsample_nearest2d.vec_out").tensor(in).none().reals({0.5, 2.5}).out(out).run(), Error::Ok);
  expect_picks(in, out, {0, 2}, {0, 0, 0, 1, 1, 2, 2});
}

TEST(UpsampleNearest2d, OutputSizesUpAndDown) {
  TestTensor in(ScalarType::Short, {1, 2, 3, 7}), out(ScalarType::Short, {1, 2, 5, 4});
  fill_uniform(in, 9, -32768, 32767);
  ASSERT_EQ(KernelCall("aten::upsample_nearest2d.vec_out").tensor(in).ints({5, 4}).none().out(out).run(), Error::Ok);
  expect_picks(in, out, {0, 0, 1, 1, 2}, {0, 1, 3, 5});
  TestTensor wide(ScalarType::Int, {1, 1, 1, 4}), wider(ScalarType::Int, {1, 1, 1, 10});
  fill_uniform(wide, 10, -1000, 1000);
  ASSERT_EQ(KernelCall("aten::upsample_nearest2d.vec_out").tensor(wide).ints({1, 10}).none().out(wider).run(), Error::Ok);
  expect_picks(wide, wider, {0}, {0, 0, 0, 1, 1, 2, 2, 2, 3, 3});
}

TEST(UpsampleNearest2d, RejectsBadArguments) {
  TestTensor in(ScalarType::Char, {1, 1, 2, 2}), out(ScalarType::Char, {1, 1, 4, 4}), flat(ScalarType::Char, {4}),
      other(ScalarType::Float, {1, 1, 4, 4});
  EXPECT_EQ(KernelCall("aten::upsample_nearest2d.vec_out").tensor(in).none().none().out(out).run(), Error::InvalidArgument);
  EXPECT_EQ(KernelCall("aten::upsample_nearest2d.vec_out").tensor(in).ints({4, 4}).reals({2.0, 2.0}).out(out).run(),
            Error::InvalidArgument);
  EXPECT_EQ(KernelCall("aten::upsample_nearest2d.vec_out").tensor(in).none().reals({2.0}).out(out).run(), Error::InvalidArgument);
  EXPECT_EQ(KernelCall("aten::upsample_nearest2d.vec_out").tensor(in).none().reals({-2.0, 2.0}).out(out).run(),
            Error::InvalidArgument);
  EXPECT_EQ(KernelCall("aten::upsample_nearest2d.vec_out").tensor(in).ints({0, 4}).none().out(out).run(), Error::InvalidArgument);
  EXPECT_EQ(KernelCall("aten::upsample_nearest2d.vec_out").tensor(flat).none().reals({2.0, 2.0}).out(out).run(),
            Error::InvalidArgument);
  EXPECT_EQ(KernelCall("aten::upsample_nearest2d.vec_out").tensor(in).none().reals({2.0, 2.0}).out(other).run(),
            Error::InvalidArgument);
  TestTensor small(ScalarType::Char, {1, 1, 3, 3});  // not the 4x4 the factors give
  EXPECT_EQ(KernelCall("aten::upsample_nearest2d.vec_out").tensor(in).none().reals({2.0, 2.0}).out(small).run(),
            Error::InvalidArgument);
}

}  // namespace
