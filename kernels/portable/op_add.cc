// aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out)
#include "kernels/portable/kernel_util.h"

namespace etarm {
namespace kernels {
namespace {

void add_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  double alpha;
  ETARM_KERNEL_CHECK(ctx, stack.size() == 5 && scalar_arg(stack, 2, &alpha), "add.out: bad arguments");
  const float a = static_cast<float>(alpha);
  binary_float_op(ctx, tensor_arg(stack, 0), tensor_arg(stack, 1), tensor_arg(stack, 3), [a](float x, float y) {
    return x + a * y;
  });
}

} // namespace
ETARM_KERNEL(aten, add, out, add_out)
} // namespace kernels
} // namespace etarm
