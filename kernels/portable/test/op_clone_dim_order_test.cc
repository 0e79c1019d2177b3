// dim_order_ops::_clone_dim_order.out: a copy of `self` in the output's memory layout (the
// dim_order argument, when given, must be that layout). Values compare by logical index,
// so a copy into another layout checks the kernel wrote through the output's strides.
#include "kernels/testing/harness.h"

namespace {

using namespace etarm::kernels::testing;

const std::vector<uint8_t> kNchw = {0, 1, 2, 3};
const std::vector<uint8_t> kNhwc = {0, 2, 3, 1};

// Copies a random 4-D tensor from one layout to another; `dim_order` is the argument.
void check_clone(ScalarType dtype, const std::vector<uint8_t>& from, const std::vector<uint8_t>& to, bool pass_order) {
  const std::vector<int32_t> shape = {2, 3, 4, 5};
  TestTensor in(dtype, shape, from), out(dtype, shape, to);
  fill_uniform(in, 61, -100, 100);
  KernelCall call("dim_order_ops::_clone_dim_order.out");
  call.tensor(in).boolean(false);
  if (pass_order) {
    call.ints({to[0], to[1], to[2], to[3]});
  } else {
    call.none();
  }
  ASSERT_EQ(call.out(out).run(), Error::Ok);
  EXPECT_TENSOR_EQ(out, in);
  // Memory order of the output: element (n, c, h, w) of channels-last sits at ((n*H + h)*W + w)*C + c.
  if (to == kNhwc && dtype == ScalarType::Float) {
    const Index probe = in.make_index({1, 2, 3, 4});
    EXPECT_EQ(value_at(in, probe), static_cast<double>(out.data<float>()[((1 * 4 + 3) * 5 + 4) * 3 + 2]));
  }
}

TEST(CloneDimOrder, ContiguousToChannelsLast) {
  check_clone(ScalarType::Float, kNchw, kNhwc, true);
}

TEST(CloneDimOrder, ChannelsLastToContiguous) {
  check_clone(ScalarType::Float, kNhwc, kNchw, true);
}

TEST(CloneDimOrder, NoDimOrderKeepsTheLayout) {
  check_clone(ScalarType::Char, kNhwc, kNhwc, false);
}

TEST(CloneDimOrder, Int16Copy) {
  check_clone(ScalarType::Short, kNchw, kNchw, true);
}

TEST(CloneDimOrder, RejectsADimOrderOtherThanTheOutputs) {
  TestTensor in(ScalarType::Float, {1, 2, 2, 2}), out(ScalarType::Float, {1, 2, 2, 2});
  EXPECT_EQ(KernelCall("dim_order_ops::_clone_dim_order.out").tensor(in).boolean(false).ints({0, 2, 3, 1}).out(out).run(),
            Error::InvalidArgument);
}

TEST(CloneDimOrder, RejectsADtypeChange) {
  TestTensor in(ScalarType::Float, {4}), out(ScalarType::Int, {4});
  EXPECT_EQ(KernelCall("dim_order_ops::_clone_dim_order.out").tensor(in).boolean(false).none().out(out).run(),
            Error::InvalidArgument);
}

}  // namespace
