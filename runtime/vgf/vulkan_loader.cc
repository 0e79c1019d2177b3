#include "runtime/vgf/vulkan_loader.h"

#include <dlfcn.h>

#include <mutex>

namespace etarm {
namespace vgf {

#define ETARM_VULKAN_DEFINE(name) PFN_##name name = nullptr;
ETARM_VULKAN_FUNCTIONS(ETARM_VULKAN_DEFINE)
#undef ETARM_VULKAN_DEFINE

namespace {

// Resolves every function or names the first missing one; run once.
std::string open_and_resolve() {
  void* library = dlopen(kVulkanLoaderLibrary, RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* reason = dlerror();
    return std::string("the Vulkan loader ") + kVulkanLoaderLibrary +
           " cannot be opened: " + (reason != nullptr ? reason : "unknown reason") +
           " (install the device's Vulkan loader and driver, or point LD_LIBRARY_PATH at them)";
  }
#define ETARM_VULKAN_RESOLVE(name)                                                                   \
  name = reinterpret_cast<PFN_##name>(dlsym(library, #name));                                        \
  if (name == nullptr) {                                                                             \
    return std::string("the Vulkan loader ") + kVulkanLoaderLibrary + " has no " #name              \
           " (the delegate needs a Vulkan 1.3 loader)";                                              \
  }
  ETARM_VULKAN_FUNCTIONS(ETARM_VULKAN_RESOLVE)
#undef ETARM_VULKAN_RESOLVE
  return "";
}

}  // namespace

bool open_vulkan_loader(std::string* why) {
  static std::once_flag once;
  static std::string failure;
  std::call_once(once, [] { failure = open_and_resolve(); });
  if (!failure.empty()) {
    *why = failure;
    return false;
  }
  return true;
}

}  // namespace vgf
}  // namespace etarm
