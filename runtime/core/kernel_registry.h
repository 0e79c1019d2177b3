// runtime/core's kernel registry beyond ExecuTorch's API: kernel libraries registered with
// a priority, so that an optimised library (kernels/cortex_m, CMSIS-NN) replaces the
// portable kernels op by op, whatever order the libraries' static initialisers run in.
//
// The rule, for each (operator name, kernel key) pair:
//   - the registration with the highest priority wins, in any registration order; a lower
//     one arriving later is ignored (it returns Ok: the op has a better kernel);
//   - two registrations at the same priority conflict: the later one is refused with
//     RegistrationAlreadyRegistered and the earlier one stays (ExecuTorch's own rule);
//   - ExecuTorch's register_kernels() registers at kPortableKernels.
// Lookup is unchanged: a kernel registered for the exact key of the call's tensor metas
// wins over a fallback (key-less) kernel, so a library may also take over one dtype or dim
// order of an op and leave the others to the fallback.
//
// The table's capacity is --//runtime/core:max_kernels (default 256); a registration that
// does not fit is refused with RegistrationExceedingMaxKernels, logged, and counted, and a
// later lookup of an op it dropped names the setting. docs/runtime_core.md.
//
// Only runtime/core implements this header. The genuine prebuilt libexecutorch.so (host
// programs) has no priorities: a second kernel for a registered (name, key) pair, or one
// beyond its 2000 entries, aborts the process; host programs link one library per op.
#pragma once

#include <cstddef>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/kernel/operator_registry.h>

namespace etarm {
namespace core {

// Priorities of etarm's kernel libraries; higher wins.
constexpr int kPortableKernels = 0;    // kernels/portable, and every ExecuTorch registration
constexpr int kOptimizedKernels = 100;  // CPU-specific libraries (kernels/cortex_m)

executorch::runtime::Error register_kernels(executorch::runtime::Span<const executorch::runtime::Kernel> kernels,
                                            int priority);

// Registers a library's kernels from a static initialiser:
//   const etarm::core::KernelRegistration registration(kKernels, etarm::core::kOptimizedKernels);
class KernelRegistration {
 public:
  template <size_t N>
  KernelRegistration(const executorch::runtime::Kernel (&kernels)[N], int priority)
      : error_(register_kernels({kernels, N}, priority)) {}
  executorch::runtime::Error error() const {
    return error_;
  }

 private:
  executorch::runtime::Error error_;
};

// The priority the registered kernel for (name, key) came with (key nullptr: the fallback
// kernel); NotFound if there is none.
executorch::runtime::Result<int> registered_priority(const char* name, const char* key);

// Entries the table holds (--//runtime/core:max_kernels) and registrations refused because
// it was full.
size_t kernel_registry_capacity();
size_t kernel_registrations_dropped();

}  // namespace core
}  // namespace etarm
