// The Vulkan loader, opened at run time (dlopen of libvulkan.so.1) rather than linked: a
// program carrying the VGF delegate starts on a system without Vulkan and reports that as
// an Error when a VGF payload is loaded, and one build runs on any device's loader.
//
// The core functions vulkan_graph.cc calls are function pointers of this namespace with the
// Vulkan names (the headers are included without prototypes), set by open_vulkan_loader();
// extension functions still come from vkGetInstanceProcAddr / vkGetDeviceProcAddr.
#pragma once

#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <vulkan/vulkan.h>

#include <string>

namespace etarm {
namespace vgf {

// The loader's core exports used by the delegate.
#define ETARM_VULKAN_FUNCTIONS(X)           \
  X(vkAllocateCommandBuffers)               \
  X(vkAllocateDescriptorSets)               \
  X(vkAllocateMemory)                       \
  X(vkBeginCommandBuffer)                   \
  X(vkCmdBindDescriptorSets)                \
  X(vkCmdBindPipeline)                      \
  X(vkCmdPipelineBarrier2)                  \
  X(vkCreateCommandPool)                    \
  X(vkCreateDescriptorPool)                 \
  X(vkCreateDescriptorSetLayout)            \
  X(vkCreateDevice)                         \
  X(vkCreateFence)                          \
  X(vkCreateInstance)                       \
  X(vkCreatePipelineLayout)                 \
  X(vkCreateShaderModule)                   \
  X(vkDestroyCommandPool)                   \
  X(vkDestroyDescriptorPool)                \
  X(vkDestroyDescriptorSetLayout)           \
  X(vkDestroyDevice)                        \
  X(vkDestroyFence)                         \
  X(vkDestroyInstance)                      \
  X(vkDestroyPipeline)                      \
  X(vkDestroyPipelineLayout)                \
  X(vkDestroyShaderModule)                  \
  X(vkDeviceWaitIdle)                       \
  X(vkEndCommandBuffer)                     \
  X(vkEnumerateDeviceExtensionProperties)   \
  X(vkEnumerateInstanceLayerProperties)     \
  X(vkEnumeratePhysicalDevices)             \
  X(vkFlushMappedMemoryRanges)              \
  X(vkFreeMemory)                           \
  X(vkGetDeviceProcAddr)                    \
  X(vkGetDeviceQueue)                       \
  X(vkGetInstanceProcAddr)                  \
  X(vkGetPhysicalDeviceFeatures2)           \
  X(vkGetPhysicalDeviceMemoryProperties)    \
  X(vkGetPhysicalDeviceProperties)          \
  X(vkGetPhysicalDeviceProperties2)         \
  X(vkGetPhysicalDeviceQueueFamilyProperties) \
  X(vkInvalidateMappedMemoryRanges)         \
  X(vkMapMemory)                            \
  X(vkQueueSubmit)                          \
  X(vkResetFences)                          \
  X(vkUpdateDescriptorSets)                 \
  X(vkWaitForFences)

#define ETARM_VULKAN_DECLARE(name) extern PFN_##name name;
ETARM_VULKAN_FUNCTIONS(ETARM_VULKAN_DECLARE)
#undef ETARM_VULKAN_DECLARE

// The shared library opened: libvulkan.so.1, found the way the dynamic linker finds
// libraries (LD_LIBRARY_PATH, the system's library directories).
constexpr const char* kVulkanLoaderLibrary = "libvulkan.so.1";

// Opens the loader and resolves every function above, once per process (thread-safe; the
// loader stays open until exit). false with the reason in `why` when the library or one of
// its functions is missing.
bool open_vulkan_loader(std::string* why);

}  // namespace vgf
}  // namespace etarm
