// aten::mul.out(Tensor self, Tensor other, *, Tensor(a!) out)
#include "kernels/portable/kernel_util.h"

namespace etarm {
namespace kernels {
namespace {

void mul_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  ETARM_KERNEL_CHECK(ctx, stack.size() == 4, "mul.out: bad arguments");
  binary_float_op(ctx, tensor_arg(stack, 0), tensor_arg(stack, 1), tensor_arg(stack, 2), [](float x, float y) {
    return x * y;
  });
}

} // namespace
ETARM_KERNEL(aten, mul, out, mul_out)
} // namespace kernels
} // namespace etarm
