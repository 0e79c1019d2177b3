// dim_order_ops::_clone_dim_order.out(Tensor self, *, bool non_blocking=False,
//                                     int[]? dim_order=None, Tensor(a!) out)
// A copy that may change the memory layout (dim order) of the tensor.
#include "kernels/portable/kernel_util.h"

namespace etarm {
namespace kernels {
namespace {

void clone_dim_order_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  const Tensor* in = tensor_arg(stack, 0);
  const Tensor* out = tensor_arg(stack, 3);
  ETARM_KERNEL_CHECK(ctx, stack.size() == 5 && in && out, "_clone_dim_order.out: bad arguments");
  ETARM_KERNEL_CHECK(
      ctx, in->scalar_type() == out->scalar_type() && in->dim() == out->dim(), "_clone_dim_order.out: bad dtypes or rank");
  const size_t rank = static_cast<size_t>(in->dim());
  ArrayRef<int64_t> order;
  if (int_list_arg(stack, 2, &order)) {
    ETARM_KERNEL_CHECK(ctx, order.size() == rank, "_clone_dim_order.out: bad dim_order");
    for (size_t i = 0; i < rank; ++i) {
      ETARM_KERNEL_CHECK(ctx, order[i] == out->dim_order()[i], "_clone_dim_order.out: dim_order differs from out's");
    }
  } else {
    ETARM_KERNEL_CHECK(ctx, is_none_arg(stack, 2), "_clone_dim_order.out: bad dim_order");
  }
  ETARM_KERNEL_CHECK(ctx, resize_out(*out, in->sizes().data(), rank), "_clone_dim_order.out: bad output shape");
  ETARM_KERNEL_CHECK(ctx, has_data(*in) && has_data(*out), "_clone_dim_order.out: tensor without data");
  strided_copy(
      in->const_data_ptr(), out->mutable_data_ptr(), in->element_size(), in->sizes().data(), rank,
      in->strides().data(), out->strides().data(), in->numel());
}

} // namespace
ETARM_KERNEL(dim_order_ops, _clone_dim_order, out, clone_dim_order_out)
} // namespace kernels
} // namespace etarm
