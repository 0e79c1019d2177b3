// A stand-in for an optimised kernel library (kernels/cortex_m): registers its own
// aten::relu.out at etarm::core::kOptimizedKernels, so it replaces //kernels/portable's for
// that op only. Tests check which kernel the registry hands out (relu_override) and that a
// program ran it (relu_override_calls, and a line printed at its first call).
#pragma once

#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>

namespace etarm {
namespace kernels {
namespace testing {

void relu_override(executorch::runtime::KernelRuntimeContext& ctx,
                   executorch::runtime::Span<executorch::runtime::EValue*> stack);

int relu_override_calls();

}  // namespace testing
}  // namespace kernels
}  // namespace etarm
