// cortex_m::cpu_variant.out(Tensor self, str cpu, str code_path, *, Tensor(a!) out) -> Tensor(a!)
//
// The record of the Cortex-M CPU (-t name) a program was compiled for and the CMSIS-NN code path it
// selects (MVE, DSP, SCALAR), put on the program's first input by
// python/etarm/cortex_m/passes/record_cpu_variant.py; out is a copy of self. On an image for an
// M-profile core whose CMSIS-NN path is another, the kernel fails naming both (scratch sizes and the
// fully-connected buffer follow the path). Host and Linux builds run CMSIS-NN's plain C as a model
// of every path and accept every program.
#include <cstring>
#include <string_view>

#include "kernels/portable/kernel_util.h"
#include "third_party/cmsis_nn/code_path.h"

namespace etarm {
namespace kernels {
namespace {

bool string_arg(Span<EValue*> stack, size_t i, std::string_view* value) {
  if (i >= stack.size() || !stack[i]->isString()) {
    return false;
  }
  *value = stack[i]->toString();
  return true;
}

bool known_code_path(std::string_view path) {
  return path == "MVE" || path == "DSP" || path == "SCALAR";
}

#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
constexpr bool kCortexMImage = true;
#else
constexpr bool kCortexMImage = false;
#endif

// The image's architecture, for the error message (the compiler's macros of its -mcpu).
const char* image_architecture() {
#if defined(__ARM_ARCH_8_1M_MAIN__)
  return "Armv8.1-M (Cortex-M55/M85)";
#elif defined(__ARM_ARCH_8M_MAIN__)
  return "Armv8-M mainline (Cortex-M33/M35P)";
#elif defined(__ARM_ARCH_7EM__)
  return "Armv7E-M (Cortex-M4/M7)";
#elif defined(__ARM_ARCH_7M__)
  return "Armv7-M (Cortex-M3)";
#else
  return "this core";
#endif
}

void cpu_variant_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  const Tensor* in = tensor_arg(stack, 0);
  const Tensor* out = tensor_arg(stack, 3);
  std::string_view cpu, path;
  ETARM_KERNEL_CHECK(
      ctx, stack.size() == 5 && in && out && string_arg(stack, 1, &cpu) && string_arg(stack, 2, &path),
      "cortex_m::cpu_variant.out: bad arguments");
  ETARM_KERNEL_CHECK(
      ctx, !cpu.empty() && known_code_path(path),
      "cortex_m::cpu_variant.out: corrupt record: cpu '%.*s', code path '%.*s' (expected MVE, DSP or SCALAR)",
      static_cast<int>(cpu.size()), cpu.data(), static_cast<int>(path.size()), path.data());
  const char* image_path = etarm_cmsis_nn_code_path();
  ETARM_KERNEL_CHECK(
      ctx, !kCortexMImage || path == image_path,
      "cortex_m::cpu_variant.out: this program was compiled for %.*s (CMSIS-NN's %.*s path), but this image is "
      "built for %s with CMSIS-NN's %s path: compile the model with -t for this image's CPU, or build the image for "
      "%.*s",
      static_cast<int>(cpu.size()), cpu.data(), static_cast<int>(path.size()), path.data(), image_architecture(),
      image_path, static_cast<int>(cpu.size()), cpu.data());
  ETARM_KERNEL_CHECK(
      ctx, in->scalar_type() == out->scalar_type() && in->dim() == out->dim() && contiguous(*in) && contiguous(*out),
      "cortex_m::cpu_variant.out: out must be a contiguous tensor of self's dtype and rank");
  ETARM_KERNEL_CHECK(
      ctx, resize_out(*out, in->sizes().data(), static_cast<size_t>(in->dim())),
      "cortex_m::cpu_variant.out: bad output shape");
  ETARM_KERNEL_CHECK(ctx, has_data(*in) && has_data(*out), "cortex_m::cpu_variant.out: tensor without data");
  if (out->const_data_ptr() != in->const_data_ptr()) {
    std::memcpy(out->mutable_data_ptr(), in->const_data_ptr(), in->nbytes());
  }
}

} // namespace
ETARM_KERNEL(cortex_m, cpu_variant, out, cpu_variant_out)
} // namespace kernels
} // namespace etarm
