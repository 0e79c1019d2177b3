// What the registry tests (runtime/core's and the genuine runtime's) share: kernels that
// do nothing but can be told apart by address, and a lookup as a Method does it.
#pragma once

#include <executorch/runtime/kernel/operator_registry.h>

#include "runtime/executorch_names.h"

namespace etarm {
namespace registry_test {

inline void kernel_a(KernelRuntimeContext&, Span<EValue*>) {}
inline void kernel_b(KernelRuntimeContext&, Span<EValue*>) {}
inline void kernel_c(KernelRuntimeContext&, Span<EValue*>) {}

// The kernel the registry hands out for `name` and these argument metas, or nullptr.
inline OpFunction lookup(const char* name, Span<const TensorMeta> metas = {}) {
  auto op = executorch::runtime::get_op_function_from_registry(name, metas);
  return op.ok() ? *op : nullptr;
}

// Metas of one 2-D contiguous tensor argument of `dtype` (kernel key "v1/<dtype>;0,1").
class Metas2d {
 public:
  explicit Metas2d(ScalarType dtype) : meta_(dtype, {order_, 2}) {}
  Span<const TensorMeta> span() const {
    return {&meta_, 1};
  }

 private:
  executorch::aten::DimOrderType order_[2] = {0, 1};
  TensorMeta meta_;
};

}  // namespace registry_test
}  // namespace etarm
