#include "runtime/vgf/vulkan_graph.h"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <utility>

#include "runtime/vgf/text.h"
#include "runtime/vgf/vulkan_loader.h"

namespace etarm {
namespace vgf {
namespace {

// Validation messages kept for validation_errors(); the count goes on.
constexpr size_t kKeptValidationErrors = 16;

Error fail(std::string* why, Error error, std::string reason) {
  *why = std::move(reason);
  return error;
}

Error vk_fail(std::string* why, const char* what, VkResult result) {
  const Error error = result == VK_ERROR_OUT_OF_HOST_MEMORY || result == VK_ERROR_OUT_OF_DEVICE_MEMORY
                          ? Error::MemoryAllocationFailed
                          : Error::Internal;
  return fail(why, error, text_printf("%s failed: VkResult %d", what, static_cast<int>(result)));
}

const char* env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "(unset)";
}

bool parse_unsigned(const char* text, uint64_t max, uint64_t* value) {
  if (text == nullptr || *text == '\0') {
    return false;
  }
  uint64_t v = 0;
  for (const char* p = text; *p != '\0'; ++p) {
    if (*p < '0' || *p > '9' || v > (max - static_cast<uint64_t>(*p - '0')) / 10) {
      return false;
    }
    v = v * 10 + static_cast<uint64_t>(*p - '0');
  }
  *value = v;
  return true;
}

// The device functions of VK_ARM_tensors and VK_ARM_data_graph (the loader exports only
// core functions).
struct ArmFunctions {
  PFN_vkCreateTensorARM create_tensor = nullptr;
  PFN_vkDestroyTensorARM destroy_tensor = nullptr;
  PFN_vkCreateTensorViewARM create_tensor_view = nullptr;
  PFN_vkDestroyTensorViewARM destroy_tensor_view = nullptr;
  PFN_vkGetTensorMemoryRequirementsARM tensor_memory_requirements = nullptr;
  PFN_vkBindTensorMemoryARM bind_tensor_memory = nullptr;
  PFN_vkCreateDataGraphPipelinesARM create_pipelines = nullptr;
  PFN_vkCreateDataGraphPipelineSessionARM create_session = nullptr;
  PFN_vkGetDataGraphPipelineSessionBindPointRequirementsARM session_bind_points = nullptr;
  PFN_vkGetDataGraphPipelineSessionMemoryRequirementsARM session_memory_requirements = nullptr;
  PFN_vkBindDataGraphPipelineSessionMemoryARM bind_session_memory = nullptr;
  PFN_vkDestroyDataGraphPipelineSessionARM destroy_session = nullptr;
  PFN_vkCmdDispatchDataGraphARM dispatch = nullptr;
  PFN_vkCmdCopyTensorARM copy_tensor = nullptr;
};

template <typename F>
bool load(VkDevice device, const char* name, F* function) {
  *function = reinterpret_cast<F>(vkGetDeviceProcAddr(device, name));
  return *function != nullptr;
}

// Vulkan's two-call enumeration: `call(&count, nullptr)` for the count, then the items.
template <typename T, typename Call>
std::vector<T> enumerate(Call call) {
  uint32_t count = 0;
  call(&count, static_cast<T*>(nullptr));
  std::vector<T> items(count);
  call(&count, items.data());
  items.resize(count);
  return items;
}

bool has_extension(const std::vector<VkExtensionProperties>& extensions, const char* name) {
  return std::any_of(extensions.begin(), extensions.end(),
                     [name](const VkExtensionProperties& e) { return std::strcmp(e.extensionName, name) == 0; });
}

std::string join(const std::vector<std::string>& items) {
  std::string s;
  for (const std::string& item : items) {
    s += (s.empty() ? "" : ", ") + item;
  }
  return s;
}

// The features a converted graph's SPIR-V may need, each enabled when the device has it.
struct Features {
  VkPhysicalDeviceFeatures2 core{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  VkPhysicalDeviceVulkan11Features v11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceVulkan13Features v13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  VkPhysicalDeviceTensorFeaturesARM tensor{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TENSOR_FEATURES_ARM};
  VkPhysicalDeviceDataGraphFeaturesARM graph{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DATA_GRAPH_FEATURES_ARM};
  VkPhysicalDeviceShaderReplicatedCompositesFeaturesEXT replicated{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_REPLICATED_COMPOSITES_FEATURES_EXT};

  // Chains the structures (replicated composites only when the device has the extension).
  void chain(bool with_replicated) {
    core.pNext = &v11;
    v11.pNext = &v12;
    v12.pNext = &v13;
    v13.pNext = &tensor;
    tensor.pNext = &graph;
    graph.pNext = with_replicated ? &replicated : nullptr;
    replicated.pNext = nullptr;
  }

  // The subset of `available` to enable.
  void select(const Features& available) {
    core.features.shaderInt16 = available.core.features.shaderInt16;
    core.features.shaderInt64 = available.core.features.shaderInt64;
    core.features.shaderFloat64 = available.core.features.shaderFloat64;
    v11.storageBuffer16BitAccess = available.v11.storageBuffer16BitAccess;
    v12.shaderInt8 = available.v12.shaderInt8;
    v12.shaderFloat16 = available.v12.shaderFloat16;
    v12.storageBuffer8BitAccess = available.v12.storageBuffer8BitAccess;
    v12.vulkanMemoryModel = available.v12.vulkanMemoryModel;
    v12.vulkanMemoryModelDeviceScope = available.v12.vulkanMemoryModelDeviceScope;
    v13.synchronization2 = available.v13.synchronization2;
    v13.maintenance4 = available.v13.maintenance4;
    tensor.tensors = available.tensor.tensors;
    tensor.shaderTensorAccess = available.tensor.shaderTensorAccess;
    graph.dataGraph = available.graph.dataGraph;
    graph.dataGraphShaderModule = available.graph.dataGraphShaderModule;
    replicated.shaderReplicatedComposites = available.replicated.shaderReplicatedComposites;
  }
};

struct Candidate {
  VkPhysicalDevice device = VK_NULL_HANDLE;
  uint32_t queue_family = 0;
  std::vector<VkExtensionProperties> extensions;
  std::string name;
};

// Why `device` cannot run data graphs (empty when it can); fills the candidate.
std::string check_device(VkPhysicalDevice device, Candidate* candidate) {
  VkPhysicalDeviceProperties properties;
  vkGetPhysicalDeviceProperties(device, &properties);
  candidate->device = device;
  candidate->name = properties.deviceName;
  candidate->extensions = enumerate<VkExtensionProperties>([device](uint32_t* count, VkExtensionProperties* items) {
    vkEnumerateDeviceExtensionProperties(device, nullptr, count, items);
  });
  for (const char* needed : {VK_ARM_TENSORS_EXTENSION_NAME, VK_ARM_DATA_GRAPH_EXTENSION_NAME}) {
    if (!has_extension(candidate->extensions, needed)) {
      return text_printf("%s lacks %s", candidate->name.c_str(), needed);
    }
  }
  if (properties.apiVersion < VK_API_VERSION_1_3) {
    return text_printf("%s supports Vulkan %u.%u (VK_ARM_data_graph needs 1.3)", candidate->name.c_str(),
                       VK_API_VERSION_MAJOR(properties.apiVersion), VK_API_VERSION_MINOR(properties.apiVersion));
  }
  const std::vector<VkQueueFamilyProperties> families = enumerate<VkQueueFamilyProperties>(
      [device](uint32_t* count, VkQueueFamilyProperties* items) {
        vkGetPhysicalDeviceQueueFamilyProperties(device, count, items);
      });
  for (uint32_t f = 0; f < families.size(); ++f) {
    if ((families[f].queueFlags & VK_QUEUE_DATA_GRAPH_BIT_ARM) != 0 && families[f].queueCount > 0) {
      candidate->queue_family = f;
      return "";
    }
  }
  return text_printf("%s has no queue family with VK_QUEUE_DATA_GRAPH_BIT_ARM", candidate->name.c_str());
}

std::mutex g_shared_mutex;
std::weak_ptr<VulkanDevice> g_shared_device;

}  // namespace

struct VulkanDevice::Impl {
  DeviceOptions options;
  std::string description;
  VkInstance instance = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkPhysicalDeviceMemoryProperties memory{};
  VkPhysicalDeviceTensorPropertiesARM tensor_limits{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TENSOR_PROPERTIES_ARM};
  VkDevice device = VK_NULL_HANDLE;
  uint32_t queue_family = 0;
  VkQueue queue = VK_NULL_HANDLE;
  ArmFunctions arm;
  std::mutex queue_mutex;  // vkQueueSubmit needs the queue externally synchronised

  mutable std::mutex validation_mutex;
  size_t validation_error_count = 0;
  std::vector<std::string> validation_errors;

  static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                   VkDebugUtilsMessageTypeFlagsEXT,
                                                   const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
    if ((severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) != 0) {
      Impl* self = static_cast<Impl*>(user);
      std::lock_guard<std::mutex> lock(self->validation_mutex);
      ++self->validation_error_count;
      if (self->validation_errors.size() < kKeptValidationErrors) {
        self->validation_errors.emplace_back(data != nullptr && data->pMessage != nullptr ? data->pMessage : "?");
      }
    }
    return VK_FALSE;
  }

  ~Impl() {
    if (device != VK_NULL_HANDLE) {
      vkDeviceWaitIdle(device);
      vkDestroyDevice(device, nullptr);
    }
    if (messenger != VK_NULL_HANDLE) {
      auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
          vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT"));
      if (destroy != nullptr) {
        destroy(instance, messenger, nullptr);
      }
    }
    if (instance != VK_NULL_HANDLE) {
      vkDestroyInstance(instance, nullptr);
    }
  }

  Error create_instance(std::string* why);
  Error pick_device(std::string* why);
  Error create_device(const Candidate& candidate, std::string* why);

  // A memory type of `type_bits` with all of `required`, preferring `preferred` too.
  bool find_memory_type(uint32_t type_bits, VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred,
                        uint32_t* index, VkMemoryPropertyFlags* flags) const {
    for (const VkMemoryPropertyFlags wanted : {required | preferred, required}) {
      for (uint32_t i = 0; i < memory.memoryTypeCount; ++i) {
        const VkMemoryPropertyFlags f = memory.memoryTypes[i].propertyFlags;
        if ((type_bits & (1u << i)) != 0 && (f & wanted) == wanted) {
          *index = i;
          *flags = f;
          return true;
        }
      }
    }
    return false;
  }
};

Error VulkanDevice::Impl::create_instance(std::string* why) {
  const std::vector<VkLayerProperties> available = enumerate<VkLayerProperties>(
      [](uint32_t* count, VkLayerProperties* items) { vkEnumerateInstanceLayerProperties(count, items); });
  const auto found = [&available](const std::string& name) {
    return std::any_of(available.begin(), available.end(),
                       [&name](const VkLayerProperties& l) { return name == l.layerName; });
  };
  std::vector<std::string> layers;
  if (options.validation) {
    layers.push_back(kValidationLayer);
  }
  if (options.use_default_layers) {
    for (const char* layer : {kGraphEmulationLayer, kTensorEmulationLayer}) {
      if (found(layer)) {
        layers.push_back(layer);
      }
    }
  } else {
    layers.insert(layers.end(), options.layers.begin(), options.layers.end());
  }
  std::vector<const char*> layer_names;
  for (const std::string& layer : layers) {
    if (!found(layer)) {
      return fail(why, Error::NotSupported,
                  text_printf("the Vulkan loader finds no layer %s (VK_LAYER_PATH=%s)", layer.c_str(),
                              env("VK_LAYER_PATH")));
    }
    layer_names.push_back(layer.c_str());
  }
  std::vector<const char*> extensions;
  VkDebugUtilsMessengerCreateInfoEXT messenger_info{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
  messenger_info.messageSeverity =
      VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT;
  messenger_info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  messenger_info.pfnUserCallback = &Impl::on_message;
  messenger_info.pUserData = this;
  if (options.validation) {
    extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  }
  VkApplicationInfo application{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  application.pApplicationName = "etarm VgfBackend";
  application.apiVersion = VK_API_VERSION_1_3;
  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  info.pNext = options.validation ? &messenger_info : nullptr;  // also reports instance creation
  info.pApplicationInfo = &application;
  info.enabledLayerCount = static_cast<uint32_t>(layer_names.size());
  info.ppEnabledLayerNames = layer_names.data();
  info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  const VkResult result = vkCreateInstance(&info, nullptr, &instance);
  if (result != VK_SUCCESS) {
    instance = VK_NULL_HANDLE;
    return fail(why, Error::NotSupported,
                text_printf("vkCreateInstance failed (VkResult %d): no usable Vulkan driver? (VK_DRIVER_FILES=%s, "
                            "VK_ICD_FILENAMES=%s)",
                            static_cast<int>(result), env("VK_DRIVER_FILES"), env("VK_ICD_FILENAMES")));
  }
  if (options.validation) {
    auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT"));
    if (create == nullptr || create(instance, &messenger_info, nullptr, &messenger) != VK_SUCCESS) {
      messenger = VK_NULL_HANDLE;
      return fail(why, Error::NotSupported, "the validation layer's debug messenger cannot be created");
    }
  }
  description = layers.empty() ? "" : " [layers: " + join(layers) + "]";
  return Error::Ok;
}

Error VulkanDevice::Impl::pick_device(std::string* why) {
  uint32_t count = 0;
  VkResult result = vkEnumeratePhysicalDevices(instance, &count, nullptr);
  std::vector<VkPhysicalDevice> devices(count);
  if (result == VK_SUCCESS && count > 0) {
    result = vkEnumeratePhysicalDevices(instance, &count, devices.data());
  }
  if ((result != VK_SUCCESS && result != VK_INCOMPLETE) || count == 0) {
    return fail(why, Error::NotSupported,
                text_printf("no Vulkan device (VkResult %d; VK_DRIVER_FILES=%s)", static_cast<int>(result),
                            env("VK_DRIVER_FILES")));
  }
  devices.resize(count);
  if (options.device_index >= 0) {
    if (static_cast<size_t>(options.device_index) >= devices.size()) {
      return fail(why, Error::NotSupported,
                  text_printf("Vulkan device %d requested; there are %zu", options.device_index, devices.size()));
    }
    devices = {devices[static_cast<size_t>(options.device_index)]};
  }
  std::vector<std::string> reasons;
  for (VkPhysicalDevice device : devices) {
    Candidate candidate;
    std::string reason = check_device(device, &candidate);
    if (reason.empty()) {
      return create_device(candidate, why);
    }
    reasons.push_back(std::move(reason));
  }
  return fail(why, Error::NotSupported,
              text_printf("no Vulkan device runs data graphs: %s%s", join(reasons).c_str(),
                          options.use_default_layers ? " (the ML emulation layers provide both extensions: is "
                                                       "VK_LAYER_PATH set?)"
                                                     : ""));
}

Error VulkanDevice::Impl::create_device(const Candidate& candidate, std::string* why) {
  physical = candidate.device;
  queue_family = candidate.queue_family;
  vkGetPhysicalDeviceMemoryProperties(physical, &memory);
  VkPhysicalDeviceProperties2 properties{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  properties.pNext = &tensor_limits;
  vkGetPhysicalDeviceProperties2(physical, &properties);
  tensor_limits.pNext = nullptr;
  std::vector<const char*> extensions = {VK_ARM_TENSORS_EXTENSION_NAME, VK_ARM_DATA_GRAPH_EXTENSION_NAME};
  // The converter's SPIR-V uses replicated composites; VK_ARM_data_graph requires the other two.
  const bool replicated = has_extension(candidate.extensions, VK_EXT_SHADER_REPLICATED_COMPOSITES_EXTENSION_NAME);
  for (const char* optional : {VK_EXT_SHADER_REPLICATED_COMPOSITES_EXTENSION_NAME, VK_KHR_MAINTENANCE_5_EXTENSION_NAME,
                               VK_KHR_DEFERRED_HOST_OPERATIONS_EXTENSION_NAME}) {
    if (has_extension(candidate.extensions, optional)) {
      extensions.push_back(optional);
    }
  }
  Features available;
  available.chain(replicated);
  vkGetPhysicalDeviceFeatures2(physical, &available.core);
  if (!available.tensor.tensors || !available.graph.dataGraph || !available.graph.dataGraphShaderModule) {
    return fail(why, Error::NotSupported,
                text_printf("%s lacks the tensors, dataGraph or dataGraphShaderModule feature", candidate.name.c_str()));
  }
  Features enabled;
  enabled.chain(replicated);
  enabled.select(available);
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue_info.queueFamilyIndex = queue_family;
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;
  VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  info.pNext = &enabled.core;
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queue_info;
  info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  const VkResult result = vkCreateDevice(physical, &info, nullptr, &device);
  if (result != VK_SUCCESS) {
    device = VK_NULL_HANDLE;
    return fail(why, Error::NotSupported,
                text_printf("vkCreateDevice on %s failed (VkResult %d)%s", candidate.name.c_str(),
                            static_cast<int>(result),
                            result == VK_ERROR_EXTENSION_NOT_PRESENT
                                ? ": with the emulation layers, VK_LAYER_ML_Graph_Emulation must come before "
                                  "VK_LAYER_ML_Tensor_Emulation"
                                : ""));
  }
  vkGetDeviceQueue(device, queue_family, 0, &queue);
  const bool loaded = load(device, "vkCreateTensorARM", &arm.create_tensor) &&
                      load(device, "vkDestroyTensorARM", &arm.destroy_tensor) &&
                      load(device, "vkCreateTensorViewARM", &arm.create_tensor_view) &&
                      load(device, "vkDestroyTensorViewARM", &arm.destroy_tensor_view) &&
                      load(device, "vkGetTensorMemoryRequirementsARM", &arm.tensor_memory_requirements) &&
                      load(device, "vkBindTensorMemoryARM", &arm.bind_tensor_memory) &&
                      load(device, "vkCreateDataGraphPipelinesARM", &arm.create_pipelines) &&
                      load(device, "vkCreateDataGraphPipelineSessionARM", &arm.create_session) &&
                      load(device, "vkGetDataGraphPipelineSessionBindPointRequirementsARM", &arm.session_bind_points) &&
                      load(device, "vkGetDataGraphPipelineSessionMemoryRequirementsARM",
                           &arm.session_memory_requirements) &&
                      load(device, "vkBindDataGraphPipelineSessionMemoryARM", &arm.bind_session_memory) &&
                      load(device, "vkDestroyDataGraphPipelineSessionARM", &arm.destroy_session) &&
                      load(device, "vkCmdDispatchDataGraphARM", &arm.dispatch) &&
                      load(device, "vkCmdCopyTensorARM", &arm.copy_tensor);
  if (!loaded) {
    return fail(why, Error::NotSupported,
                text_printf("%s does not provide the VK_ARM_tensors / VK_ARM_data_graph functions",
                            candidate.name.c_str()));
  }
  description = candidate.name + description;
  return Error::Ok;
}

Error options_from_environment(DeviceOptions* options, std::string* why) {
  *options = DeviceOptions{};
  if (const char* layers = std::getenv("ETARM_VGF_LAYERS")) {
    options->use_default_layers = false;
    std::string item;
    for (const char* p = layers;; ++p) {
      if (*p == ',' || *p == '\0') {
        if (!item.empty()) {
          options->layers.push_back(item);
        }
        item.clear();
        if (*p == '\0') {
          break;
        }
      } else if (*p != ' ') {
        item += *p;
      }
    }
  }
  uint64_t value = 0;
  if (const char* device = std::getenv("ETARM_VGF_DEVICE")) {
    if (!parse_unsigned(device, 1024, &value)) {
      return fail(why, Error::InvalidArgument, text_printf("ETARM_VGF_DEVICE=%s is not a device index", device));
    }
    options->device_index = static_cast<int>(value);
  }
  if (const char* validation = std::getenv("ETARM_VGF_VALIDATION")) {
    options->validation = std::strcmp(validation, "1") == 0;
  }
  if (const char* staging = std::getenv("ETARM_VGF_STAGING")) {
    options->staging = std::strcmp(staging, "1") == 0;
  }
  if (const char* timeout = std::getenv("ETARM_VGF_TIMEOUT_MS")) {
    if (!parse_unsigned(timeout, UINT64_MAX / 1000000, &value) || value == 0) {
      return fail(why, Error::InvalidArgument,
                  text_printf("ETARM_VGF_TIMEOUT_MS=%s is not a positive number of milliseconds", timeout));
    }
    options->timeout_ms = value;
  }
  return Error::Ok;
}

VulkanDevice::VulkanDevice(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
VulkanDevice::~VulkanDevice() = default;

Error VulkanDevice::create(const DeviceOptions& options, std::shared_ptr<VulkanDevice>* device, std::string* why) {
  if (!open_vulkan_loader(why)) {
    return Error::NotSupported;
  }
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  Error err = impl->create_instance(why);
  if (err == Error::Ok) {
    err = impl->pick_device(why);
  }
  if (err != Error::Ok) {
    return err;
  }
  device->reset(new VulkanDevice(std::move(impl)));
  return Error::Ok;
}

Error VulkanDevice::shared(std::shared_ptr<VulkanDevice>* device, std::string* why) {
  std::lock_guard<std::mutex> lock(g_shared_mutex);
  *device = g_shared_device.lock();
  if (*device != nullptr) {
    return Error::Ok;
  }
  DeviceOptions options;
  Error err = options_from_environment(&options, why);
  if (err == Error::Ok) {
    err = create(options, device, why);
  }
  if (err == Error::Ok) {
    g_shared_device = *device;
  }
  return err;
}

const std::string& VulkanDevice::description() const {
  return impl_->description;
}

const DeviceOptions& VulkanDevice::options() const {
  return impl_->options;
}

size_t VulkanDevice::validation_error_count() const {
  std::lock_guard<std::mutex> lock(impl_->validation_mutex);
  return impl_->validation_error_count;
}

std::vector<std::string> VulkanDevice::validation_errors() const {
  std::lock_guard<std::mutex> lock(impl_->validation_mutex);
  return impl_->validation_errors;
}

// ---- VulkanGraph ------------------------------------------------------------------------

struct VulkanGraph::Impl {
  struct Tensor {
    TensorDescription description;
    std::vector<int64_t> dimensions;  // what VkTensorDescriptionARM points to
    VkTensorTilingARM tiling = VK_TENSOR_TILING_LINEAR_ARM;  // of `tensor`
    VkTensorUsageFlagsARM usage = VK_TENSOR_USAGE_DATA_GRAPH_BIT_ARM;
    VkTensorARM tensor = VK_NULL_HANDLE;
    VkTensorViewARM view = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    // A graph input or output the host cannot map (or ETARM_VGF_STAGING=1): a linear tensor
    // in host-visible memory the command buffer copies from (inputs) or to (outputs).
    VkTensorARM staging = VK_NULL_HANDLE;
    VkDeviceMemory staging_memory = VK_NULL_HANDLE;
    uint8_t* mapped = nullptr;         // the host's view: of `memory`, or of `staging_memory`
    VkDeviceMemory host_memory = VK_NULL_HANDLE;  // the memory `mapped` maps
    bool coherent = true;
  };
  struct Pipeline {
    VkShaderModule module = VK_NULL_HANDLE;
    std::vector<VkDescriptorSetLayout> set_layouts;  // indexed by set number
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VkPipeline pipeline = VK_NULL_HANDLE;
    VkDataGraphPipelineSessionARM session = VK_NULL_HANDLE;
    std::vector<std::pair<uint32_t, VkDescriptorSet>> sets;  // (set number, set)
  };

  std::shared_ptr<VulkanDevice> owner;
  VulkanDevice::Impl* device = nullptr;
  std::vector<Tensor> tensors;
  std::vector<int> tensor_of_resource;  // -1: not a bound tensor
  std::vector<size_t> inputs;           // indices into tensors
  std::vector<size_t> outputs;
  std::vector<Pipeline> pipelines;
  std::vector<VkDeviceMemory> session_memory;
  VkDescriptorPool descriptor_pool = VK_NULL_HANDLE;
  VkCommandPool command_pool = VK_NULL_HANDLE;
  VkCommandBuffer commands = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  bool pending = false;  // submitted, and the fence not yet seen signalled
  double pipeline_seconds = 0;

  ~Impl();
  VkTensorDescriptionARM description_of(const Tensor& t) const;
  Error create_tensors(const VgfModel& model, std::string* why);
  // A tensor of `t`'s shape and format with memory of `required` properties (and
  // `preferred` ones where a type has them), mapped when `map`.
  Error create_tensor(const Tensor& t, VkTensorTilingARM tiling, VkTensorUsageFlagsARM usage,
                      VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred, VkTensorARM* tensor,
                      VkDeviceMemory* memory, uint8_t** mapped, bool* coherent, std::string* why);
  // `t` for the graph, and for a graph input or output the host's view of it (`staged`:
  // through a staging tensor).
  Error create_bound_tensor(Tensor& t, bool io, bool staged, std::string* why);
  Error create_pipeline(const VgfModel& model, const Segment& segment, std::string* why);
  Error bind_session_memory(Pipeline& p, std::string* why);
  Error create_descriptor_sets(const VgfModel& model, std::string* why);
  Error record_commands(std::string* why);
  Error wait(std::string* why);

  // For memory that is not host-coherent: makes the host's writes to tensors `which`
  // visible to the device (to_device), or the device's writes visible to the host.
  void sync_host_memory(const std::vector<size_t>& which, bool to_device) const {
    for (size_t i : which) {
      const Tensor& t = tensors[i];
      if (!t.coherent) {
        const VkMappedMemoryRange range{VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, nullptr, t.host_memory, 0,
                                        VK_WHOLE_SIZE};
        if (to_device) {
          vkFlushMappedMemoryRanges(device->device, 1, &range);
        } else {
          vkInvalidateMappedMemoryRanges(device->device, 1, &range);
        }
      }
    }
  }
};

namespace {

VkTensorDescriptionARM tensor_description(int32_t format, const std::vector<int64_t>& dimensions,
                                          VkTensorTilingARM tiling, VkTensorUsageFlagsARM usage) {
  VkTensorDescriptionARM d{VK_STRUCTURE_TYPE_TENSOR_DESCRIPTION_ARM};
  d.tiling = tiling;  // linear: packed row-major, what the host copies in and out directly
  d.format = static_cast<VkFormat>(format);
  d.dimensionCount = static_cast<uint32_t>(dimensions.size());
  d.pDimensions = dimensions.data();
  d.pStrides = nullptr;
  d.usage = usage;
  return d;
}

constexpr VkTensorUsageFlagsARM kCopyUsage = VK_TENSOR_USAGE_TRANSFER_SRC_BIT_ARM | VK_TENSOR_USAGE_TRANSFER_DST_BIT_ARM;

}  // namespace

VkTensorDescriptionARM VulkanGraph::Impl::description_of(const Tensor& t) const {
  return tensor_description(t.description.vk_format, t.dimensions, t.tiling, t.usage);
}

Error VulkanGraph::Impl::create_tensor(const Tensor& t, VkTensorTilingARM tiling, VkTensorUsageFlagsARM usage,
                                       VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred,
                                       VkTensorARM* tensor, VkDeviceMemory* memory, uint8_t** mapped, bool* coherent,
                                       std::string* why) {
  VkDevice dev = device->device;
  const VkTensorDescriptionARM description = tensor_description(t.description.vk_format, t.dimensions, tiling, usage);
  VkTensorCreateInfoARM info{VK_STRUCTURE_TYPE_TENSOR_CREATE_INFO_ARM};
  info.pDescription = &description;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkResult result = device->arm.create_tensor(dev, &info, nullptr, tensor);
  if (result != VK_SUCCESS) {
    *tensor = VK_NULL_HANDLE;
    return vk_fail(why, "vkCreateTensorARM", result);
  }
  VkTensorMemoryRequirementsInfoARM requirements_info{VK_STRUCTURE_TYPE_TENSOR_MEMORY_REQUIREMENTS_INFO_ARM};
  requirements_info.tensor = *tensor;
  VkMemoryRequirements2 requirements{VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2};
  device->arm.tensor_memory_requirements(dev, &requirements_info, &requirements);
  uint32_t type = 0;
  VkMemoryPropertyFlags flags = 0;
  if (!device->find_memory_type(requirements.memoryRequirements.memoryTypeBits, required, preferred, &type, &flags)) {
    return fail(why, Error::NotSupported,
                text_printf("the device has no memory type with properties 0x%x for a tensor", required));
  }
  *coherent = (flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) != 0;
  VkMemoryAllocateInfo allocate{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  allocate.allocationSize = requirements.memoryRequirements.size;
  allocate.memoryTypeIndex = type;
  result = vkAllocateMemory(dev, &allocate, nullptr, memory);
  if (result != VK_SUCCESS) {
    *memory = VK_NULL_HANDLE;
    return vk_fail(why, "vkAllocateMemory (tensor)", result);
  }
  VkBindTensorMemoryInfoARM bind{VK_STRUCTURE_TYPE_BIND_TENSOR_MEMORY_INFO_ARM};
  bind.tensor = *tensor;
  bind.memory = *memory;
  result = device->arm.bind_tensor_memory(dev, 1, &bind);
  if (result != VK_SUCCESS) {
    return vk_fail(why, "vkBindTensorMemoryARM", result);
  }
  if (mapped != nullptr) {
    void* host = nullptr;
    result = vkMapMemory(dev, *memory, 0, VK_WHOLE_SIZE, 0, &host);
    if (result != VK_SUCCESS) {
      return vk_fail(why, "vkMapMemory", result);
    }
    *mapped = static_cast<uint8_t*>(host);
  }
  return Error::Ok;
}

Error VulkanGraph::Impl::create_bound_tensor(Tensor& t, bool io, bool staged, std::string* why) {
  constexpr VkMemoryPropertyFlags kHostVisible = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
  constexpr VkMemoryPropertyFlags kCoherent = VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  constexpr VkMemoryPropertyFlags kDeviceLocal = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
  VkDevice dev = device->device;
  Error err = Error::Ok;
  if (io && !staged) {
    // The host reads and writes the graph's tensor itself when the device lets it map one.
    err = create_tensor(t, VK_TENSOR_TILING_LINEAR_ARM, VK_TENSOR_USAGE_DATA_GRAPH_BIT_ARM, kHostVisible, kCoherent,
                        &t.tensor, &t.memory, &t.mapped, &t.coherent, why);
    if (err != Error::NotSupported) {
      t.host_memory = t.memory;
      return err;
    }
    if (t.tensor != VK_NULL_HANDLE) {
      device->arm.destroy_tensor(dev, t.tensor, nullptr);
      t.tensor = VK_NULL_HANDLE;
    }
    staged = true;
  }
  // The graph's own tensor: the device's preferred layout in its preferred memory.
  t.usage = VK_TENSOR_USAGE_DATA_GRAPH_BIT_ARM | (staged ? kCopyUsage : 0);
  t.tiling = VK_TENSOR_TILING_OPTIMAL_ARM;
  err = create_tensor(t, t.tiling, t.usage, 0, kDeviceLocal, &t.tensor, &t.memory, nullptr, &t.coherent, why);
  if (err == Error::Ok && staged) {
    err = create_tensor(t, VK_TENSOR_TILING_LINEAR_ARM, kCopyUsage, kHostVisible, kCoherent, &t.staging,
                        &t.staging_memory, &t.mapped, &t.coherent, why);
    t.host_memory = t.staging_memory;
  }
  return err;
}

Error VulkanGraph::Impl::create_tensors(const VgfModel& model, std::string* why) {
  VkDevice dev = device->device;
  tensor_of_resource.assign(model.resources.size(), -1);
  const auto use = [&](uint32_t resource) {
    if (tensor_of_resource[resource] < 0) {
      tensor_of_resource[resource] = static_cast<int>(tensors.size());
      Tensor t;
      t.description = model.resources[resource];
      t.dimensions = t.description.shape;
      tensors.push_back(std::move(t));
    }
    return static_cast<size_t>(tensor_of_resource[resource]);
  };
  for (const BindingSlot& slot : model.inputs) {
    inputs.push_back(use(slot.resource));
  }
  for (const BindingSlot& slot : model.outputs) {
    outputs.push_back(use(slot.resource));
  }
  for (const Segment& segment : model.segments) {
    for (const DescriptorSetInfo& set : segment.descriptor_sets) {
      for (const BindingSlot& slot : set.bindings) {
        use(slot.resource);
      }
    }
  }
  for (size_t i = 0; i < tensors.size(); ++i) {
    Tensor& t = tensors[i];
    const bool io = std::find(inputs.begin(), inputs.end(), i) != inputs.end() ||
                    std::find(outputs.begin(), outputs.end(), i) != outputs.end();
    const Error err = create_bound_tensor(t, io, device->options.staging, why);
    if (err != Error::Ok) {
      return err;
    }
    VkTensorViewCreateInfoARM view{VK_STRUCTURE_TYPE_TENSOR_VIEW_CREATE_INFO_ARM};
    view.tensor = t.tensor;
    view.format = static_cast<VkFormat>(t.description.vk_format);
    const VkResult result = device->arm.create_tensor_view(dev, &view, nullptr, &t.view);
    if (result != VK_SUCCESS) {
      t.view = VK_NULL_HANDLE;
      return vk_fail(why, "vkCreateTensorViewARM", result);
    }
  }
  return Error::Ok;
}

Error VulkanGraph::Impl::create_pipeline(const VgfModel& model, const Segment& segment, std::string* why) {
  VkDevice dev = device->device;
  pipelines.emplace_back();
  Pipeline& p = pipelines.back();
  const Module& module = model.modules[segment.module];
  VkShaderModuleCreateInfo module_info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  module_info.codeSize = module.spirv_words * sizeof(uint32_t);
  module_info.pCode = module.spirv;
  VkResult result = vkCreateShaderModule(dev, &module_info, nullptr, &p.module);
  if (result != VK_SUCCESS) {
    p.module = VK_NULL_HANDLE;
    return vk_fail(why, "vkCreateShaderModule", result);
  }
  // Set layouts for set numbers 0..max (empty ones fill gaps), and the resource infos
  // that tell the pipeline each bound tensor's description.
  uint32_t num_sets = 0;
  size_t num_bindings = 0;
  for (const DescriptorSetInfo& set : segment.descriptor_sets) {
    num_sets = std::max(num_sets, set.set + 1);
    num_bindings += set.bindings.size();
  }
  std::vector<std::vector<VkDescriptorSetLayoutBinding>> bindings(num_sets);
  std::vector<VkTensorDescriptionARM> descriptions;
  descriptions.reserve(num_bindings);  // resource infos point into it
  std::vector<VkDataGraphPipelineResourceInfoARM> resources;
  for (const DescriptorSetInfo& set : segment.descriptor_sets) {
    for (const BindingSlot& slot : set.bindings) {
      VkDescriptorSetLayoutBinding b{};
      b.binding = slot.binding;
      b.descriptorType = VK_DESCRIPTOR_TYPE_TENSOR_ARM;
      b.descriptorCount = 1;
      b.stageFlags = VK_SHADER_STAGE_ALL;
      bindings[set.set].push_back(b);
      descriptions.push_back(description_of(tensors[static_cast<size_t>(tensor_of_resource[slot.resource])]));
      VkDataGraphPipelineResourceInfoARM info{VK_STRUCTURE_TYPE_DATA_GRAPH_PIPELINE_RESOURCE_INFO_ARM};
      info.pNext = &descriptions.back();
      info.descriptorSet = set.set;
      info.binding = slot.binding;
      resources.push_back(info);
    }
  }
  for (uint32_t s = 0; s < num_sets; ++s) {
    VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    info.bindingCount = static_cast<uint32_t>(bindings[s].size());
    info.pBindings = bindings[s].data();
    VkDescriptorSetLayout layout = VK_NULL_HANDLE;
    result = vkCreateDescriptorSetLayout(dev, &info, nullptr, &layout);
    if (result != VK_SUCCESS) {
      return vk_fail(why, "vkCreateDescriptorSetLayout", result);
    }
    p.set_layouts.push_back(layout);
  }
  VkPipelineLayoutCreateInfo layout_info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layout_info.setLayoutCount = num_sets;
  layout_info.pSetLayouts = p.set_layouts.data();
  result = vkCreatePipelineLayout(dev, &layout_info, nullptr, &p.layout);
  if (result != VK_SUCCESS) {
    p.layout = VK_NULL_HANDLE;
    return vk_fail(why, "vkCreatePipelineLayout", result);
  }
  // Constants: each with the description of its tensor (the data is packed row-major).
  std::vector<std::vector<int64_t>> constant_shapes;
  constant_shapes.reserve(segment.constants.size());
  std::vector<VkTensorDescriptionARM> constant_descriptions;
  constant_descriptions.reserve(segment.constants.size());
  std::vector<VkDataGraphPipelineConstantARM> constants;
  for (const GraphConstant& c : segment.constants) {
    const Constant& constant = model.constants[c.constant];
    const TensorDescription& t = model.resources[constant.resource];
    constant_shapes.push_back(t.shape);
    constant_descriptions.push_back(tensor_description(t.vk_format, constant_shapes.back(), VK_TENSOR_TILING_LINEAR_ARM,
                                                       VK_TENSOR_USAGE_DATA_GRAPH_BIT_ARM));
    VkDataGraphPipelineConstantARM info{VK_STRUCTURE_TYPE_DATA_GRAPH_PIPELINE_CONSTANT_ARM};
    info.pNext = &constant_descriptions.back();
    info.id = c.id;
    info.pConstantData = constant.data;
    constants.push_back(info);
  }
  VkDataGraphPipelineShaderModuleCreateInfoARM shader{VK_STRUCTURE_TYPE_DATA_GRAPH_PIPELINE_SHADER_MODULE_CREATE_INFO_ARM};
  shader.module = p.module;
  shader.pName = module.entry_point.c_str();
  shader.constantCount = static_cast<uint32_t>(constants.size());
  shader.pConstants = constants.data();
  VkDataGraphPipelineCreateInfoARM info{VK_STRUCTURE_TYPE_DATA_GRAPH_PIPELINE_CREATE_INFO_ARM};
  info.pNext = &shader;
  info.layout = p.layout;
  info.resourceInfoCount = static_cast<uint32_t>(resources.size());
  info.pResourceInfos = resources.data();
  const auto start = std::chrono::steady_clock::now();
  result = device->arm.create_pipelines(dev, VK_NULL_HANDLE, VK_NULL_HANDLE, 1, &info, nullptr, &p.pipeline);
  pipeline_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (result != VK_SUCCESS) {
    p.pipeline = VK_NULL_HANDLE;
    return fail(why, result == VK_ERROR_OUT_OF_HOST_MEMORY ? Error::MemoryAllocationFailed : Error::NotSupported,
                text_printf("vkCreateDataGraphPipelinesARM failed for segment %s (VkResult %d): the device cannot "
                            "build this graph",
                            segment.name.c_str(), static_cast<int>(result)));
  }
  VkDataGraphPipelineSessionCreateInfoARM session{VK_STRUCTURE_TYPE_DATA_GRAPH_PIPELINE_SESSION_CREATE_INFO_ARM};
  session.dataGraphPipeline = p.pipeline;
  result = device->arm.create_session(dev, &session, nullptr, &p.session);
  if (result != VK_SUCCESS) {
    p.session = VK_NULL_HANDLE;
    return vk_fail(why, "vkCreateDataGraphPipelineSessionARM", result);
  }
  return bind_session_memory(p, why);
}

Error VulkanGraph::Impl::bind_session_memory(Pipeline& p, std::string* why) {
  VkDevice dev = device->device;
  VkDataGraphPipelineSessionBindPointRequirementsInfoARM info{
      VK_STRUCTURE_TYPE_DATA_GRAPH_PIPELINE_SESSION_BIND_POINT_REQUIREMENTS_INFO_ARM};
  info.session = p.session;
  uint32_t count = 0;
  VkResult result = device->arm.session_bind_points(dev, &info, &count, nullptr);
  if (result != VK_SUCCESS) {
    return vk_fail(why, "vkGetDataGraphPipelineSessionBindPointRequirementsARM", result);
  }
  std::vector<VkDataGraphPipelineSessionBindPointRequirementARM> requirements(
      count, {VK_STRUCTURE_TYPE_DATA_GRAPH_PIPELINE_SESSION_BIND_POINT_REQUIREMENT_ARM});
  result = device->arm.session_bind_points(dev, &info, &count, requirements.data());
  if (result != VK_SUCCESS) {
    return vk_fail(why, "vkGetDataGraphPipelineSessionBindPointRequirementsARM", result);
  }
  for (const auto& requirement : requirements) {
    if (requirement.bindPointType != VK_DATA_GRAPH_PIPELINE_SESSION_BIND_POINT_TYPE_MEMORY_ARM) {
      return fail(why, Error::NotSupported,
                  text_printf("the session needs a bind point of type %d", static_cast<int>(requirement.bindPointType)));
    }
    for (uint32_t object = 0; object < requirement.numObjects; ++object) {
      VkDataGraphPipelineSessionMemoryRequirementsInfoARM memory_info{
          VK_STRUCTURE_TYPE_DATA_GRAPH_PIPELINE_SESSION_MEMORY_REQUIREMENTS_INFO_ARM};
      memory_info.session = p.session;
      memory_info.bindPoint = requirement.bindPoint;
      memory_info.objectIndex = object;
      VkMemoryRequirements2 memory{VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2};
      device->arm.session_memory_requirements(dev, &memory_info, &memory);
      if (memory.memoryRequirements.size == 0) {
        continue;
      }
      uint32_t type = 0;
      VkMemoryPropertyFlags flags = 0;
      if (!device->find_memory_type(memory.memoryRequirements.memoryTypeBits, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
                                    &type, &flags)) {
        return fail(why, Error::NotSupported, "no memory type fits the data-graph session");
      }
      VkMemoryAllocateInfo allocate{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
      allocate.allocationSize = memory.memoryRequirements.size;
      allocate.memoryTypeIndex = type;
      VkDeviceMemory allocation = VK_NULL_HANDLE;
      result = vkAllocateMemory(dev, &allocate, nullptr, &allocation);
      if (result != VK_SUCCESS) {
        return vk_fail(why, "vkAllocateMemory (session)", result);
      }
      session_memory.push_back(allocation);
      VkBindDataGraphPipelineSessionMemoryInfoARM bind{VK_STRUCTURE_TYPE_BIND_DATA_GRAPH_PIPELINE_SESSION_MEMORY_INFO_ARM};
      bind.session = p.session;
      bind.bindPoint = requirement.bindPoint;
      bind.objectIndex = object;
      bind.memory = allocation;
      result = device->arm.bind_session_memory(dev, 1, &bind);
      if (result != VK_SUCCESS) {
        return vk_fail(why, "vkBindDataGraphPipelineSessionMemoryARM", result);
      }
    }
  }
  return Error::Ok;
}

Error VulkanGraph::Impl::create_descriptor_sets(const VgfModel& model, std::string* why) {
  VkDevice dev = device->device;
  uint32_t num_sets = 0;
  uint32_t num_descriptors = 0;
  for (const Segment& segment : model.segments) {
    for (const DescriptorSetInfo& set : segment.descriptor_sets) {
      ++num_sets;
      num_descriptors += static_cast<uint32_t>(set.bindings.size());
    }
  }
  if (num_sets == 0) {
    return Error::Ok;
  }
  const VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_TENSOR_ARM, std::max(num_descriptors, 1u)};
  VkDescriptorPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  pool_info.maxSets = num_sets;
  pool_info.poolSizeCount = 1;
  pool_info.pPoolSizes = &size;
  VkResult result = vkCreateDescriptorPool(dev, &pool_info, nullptr, &descriptor_pool);
  if (result != VK_SUCCESS) {
    descriptor_pool = VK_NULL_HANDLE;
    return vk_fail(why, "vkCreateDescriptorPool", result);
  }
  for (size_t s = 0; s < model.segments.size(); ++s) {
    Pipeline& p = pipelines[s];
    for (const DescriptorSetInfo& set : model.segments[s].descriptor_sets) {
      VkDescriptorSetAllocateInfo allocate{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
      allocate.descriptorPool = descriptor_pool;
      allocate.descriptorSetCount = 1;
      allocate.pSetLayouts = &p.set_layouts[set.set];
      VkDescriptorSet handle = VK_NULL_HANDLE;
      result = vkAllocateDescriptorSets(dev, &allocate, &handle);
      if (result != VK_SUCCESS) {
        return vk_fail(why, "vkAllocateDescriptorSets", result);
      }
      p.sets.emplace_back(set.set, handle);
      std::vector<VkWriteDescriptorSetTensorARM> tensor_writes(set.bindings.size(),
                                                               {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET_TENSOR_ARM});
      std::vector<VkWriteDescriptorSet> writes(set.bindings.size(), {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET});
      for (size_t b = 0; b < set.bindings.size(); ++b) {
        tensor_writes[b].tensorViewCount = 1;
        tensor_writes[b].pTensorViews = &tensors[static_cast<size_t>(tensor_of_resource[set.bindings[b].resource])].view;
        writes[b].pNext = &tensor_writes[b];
        writes[b].dstSet = handle;
        writes[b].dstBinding = set.bindings[b].binding;
        writes[b].descriptorCount = 1;
        writes[b].descriptorType = VK_DESCRIPTOR_TYPE_TENSOR_ARM;
      }
      vkUpdateDescriptorSets(dev, static_cast<uint32_t>(writes.size()), writes.data(), 0, nullptr);
    }
  }
  return Error::Ok;
}

Error VulkanGraph::Impl::record_commands(std::string* why) {
  VkDevice dev = device->device;
  VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pool_info.queueFamilyIndex = device->queue_family;
  VkResult result = vkCreateCommandPool(dev, &pool_info, nullptr, &command_pool);
  if (result != VK_SUCCESS) {
    command_pool = VK_NULL_HANDLE;
    return vk_fail(why, "vkCreateCommandPool", result);
  }
  VkCommandBufferAllocateInfo allocate{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  allocate.commandPool = command_pool;
  allocate.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  allocate.commandBufferCount = 1;
  result = vkAllocateCommandBuffers(dev, &allocate, &commands);
  if (result != VK_SUCCESS) {
    commands = VK_NULL_HANDLE;
    return vk_fail(why, "vkAllocateCommandBuffers", result);
  }
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  result = vkBeginCommandBuffer(commands, &begin);
  if (result != VK_SUCCESS) {
    return vk_fail(why, "vkBeginCommandBuffer", result);
  }
  // Host writes before the submission are visible to it; staged inputs are copied in, staged
  // outputs out; between segments, one segment's outputs are the next one's inputs; at the
  // end the host reads the outputs.
  const auto barrier = [this](VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access,
                              VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access) {
    VkMemoryBarrier2 memory{VK_STRUCTURE_TYPE_MEMORY_BARRIER_2};
    memory.srcStageMask = src_stage;
    memory.srcAccessMask = src_access;
    memory.dstStageMask = dst_stage;
    memory.dstAccessMask = dst_access;
    VkDependencyInfo dependency{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
    dependency.memoryBarrierCount = 1;
    dependency.pMemoryBarriers = &memory;
    vkCmdPipelineBarrier2(commands, &dependency);
  };
  const auto copy_staged = [this](const std::vector<size_t>& which, bool in) {
    bool copied = false;
    for (size_t i : which) {
      const Tensor& t = tensors[i];
      if (t.staging == VK_NULL_HANDLE) {
        continue;
      }
      const std::vector<uint64_t> origin(t.dimensions.size(), 0);
      const std::vector<uint64_t> extent(t.dimensions.begin(), t.dimensions.end());
      VkTensorCopyARM region{VK_STRUCTURE_TYPE_TENSOR_COPY_ARM};
      region.dimensionCount = static_cast<uint32_t>(extent.size());
      region.pSrcOffset = origin.data();
      region.pDstOffset = origin.data();
      region.pExtent = extent.data();
      VkCopyTensorInfoARM info{VK_STRUCTURE_TYPE_COPY_TENSOR_INFO_ARM};
      info.srcTensor = in ? t.staging : t.tensor;
      info.dstTensor = in ? t.tensor : t.staging;
      info.regionCount = 1;
      info.pRegions = &region;
      device->arm.copy_tensor(commands, &info);
      copied = true;
    }
    return copied;
  };
  constexpr VkPipelineStageFlags2 kGraph = VK_PIPELINE_STAGE_2_DATA_GRAPH_BIT_ARM;
  constexpr VkPipelineStageFlags2 kCopy = VK_PIPELINE_STAGE_2_COPY_BIT;
  barrier(VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_WRITE_BIT, kCopy, VK_ACCESS_2_TRANSFER_READ_BIT);
  if (copy_staged(inputs, true)) {
    barrier(kCopy, VK_ACCESS_2_TRANSFER_WRITE_BIT, kGraph, VK_ACCESS_2_DATA_GRAPH_READ_BIT_ARM);
  }
  for (size_t s = 0; s < pipelines.size(); ++s) {
    const Pipeline& p = pipelines[s];
    if (s > 0) {
      barrier(kGraph, VK_ACCESS_2_DATA_GRAPH_WRITE_BIT_ARM, kGraph,
              VK_ACCESS_2_DATA_GRAPH_READ_BIT_ARM | VK_ACCESS_2_DATA_GRAPH_WRITE_BIT_ARM);
    }
    vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_DATA_GRAPH_ARM, p.pipeline);
    for (const auto& set : p.sets) {
      vkCmdBindDescriptorSets(commands, VK_PIPELINE_BIND_POINT_DATA_GRAPH_ARM, p.layout, set.first, 1, &set.second, 0,
                              nullptr);
    }
    device->arm.dispatch(commands, p.session, nullptr);
  }
  barrier(kGraph, VK_ACCESS_2_DATA_GRAPH_WRITE_BIT_ARM, kCopy | VK_PIPELINE_STAGE_2_HOST_BIT,
          VK_ACCESS_2_TRANSFER_READ_BIT | VK_ACCESS_2_HOST_READ_BIT);
  if (copy_staged(outputs, false)) {
    barrier(kCopy, VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);
  }
  result = vkEndCommandBuffer(commands);
  if (result != VK_SUCCESS) {
    return vk_fail(why, "vkEndCommandBuffer", result);
  }
  VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  result = vkCreateFence(dev, &fence_info, nullptr, &fence);
  if (result != VK_SUCCESS) {
    fence = VK_NULL_HANDLE;
    return vk_fail(why, "vkCreateFence", result);
  }
  return Error::Ok;
}

Error VulkanGraph::Impl::wait(std::string* why) {
  const uint64_t timeout_ms = device->options.timeout_ms;
  const VkResult result = vkWaitForFences(device->device, 1, &fence, VK_TRUE, timeout_ms * 1000000);
  if (result == VK_SUCCESS) {
    pending = false;
    return Error::Ok;
  }
  if (result == VK_TIMEOUT) {
    return fail(why, Error::Internal,
                text_printf("the device did not finish the graph within %" PRIu64 " ms (ETARM_VGF_TIMEOUT_MS)",
                            timeout_ms));
  }
  return vk_fail(why, "vkWaitForFences", result);
}

VulkanGraph::Impl::~Impl() {
  if (device == nullptr) {
    return;
  }
  VkDevice dev = device->device;
  std::string why;
  if (pending && wait(&why) != Error::Ok) {
    return;  // the device still uses these objects: leaking them is the only safe choice
  }
  if (fence != VK_NULL_HANDLE) {
    vkDestroyFence(dev, fence, nullptr);
  }
  if (command_pool != VK_NULL_HANDLE) {
    vkDestroyCommandPool(dev, command_pool, nullptr);  // frees the command buffer
  }
  if (descriptor_pool != VK_NULL_HANDLE) {
    vkDestroyDescriptorPool(dev, descriptor_pool, nullptr);  // frees the sets
  }
  for (Pipeline& p : pipelines) {
    if (p.session != VK_NULL_HANDLE) {
      device->arm.destroy_session(dev, p.session, nullptr);
    }
    if (p.pipeline != VK_NULL_HANDLE) {
      vkDestroyPipeline(dev, p.pipeline, nullptr);
    }
    if (p.layout != VK_NULL_HANDLE) {
      vkDestroyPipelineLayout(dev, p.layout, nullptr);
    }
    for (VkDescriptorSetLayout layout : p.set_layouts) {
      vkDestroyDescriptorSetLayout(dev, layout, nullptr);
    }
    if (p.module != VK_NULL_HANDLE) {
      vkDestroyShaderModule(dev, p.module, nullptr);
    }
  }
  for (VkDeviceMemory memory : session_memory) {
    vkFreeMemory(dev, memory, nullptr);
  }
  for (Tensor& t : tensors) {
    if (t.staging != VK_NULL_HANDLE) {
      device->arm.destroy_tensor(dev, t.staging, nullptr);
    }
    if (t.staging_memory != VK_NULL_HANDLE) {
      vkFreeMemory(dev, t.staging_memory, nullptr);
    }
    if (t.view != VK_NULL_HANDLE) {
      device->arm.destroy_tensor_view(dev, t.view, nullptr);
    }
    if (t.tensor != VK_NULL_HANDLE) {
      device->arm.destroy_tensor(dev, t.tensor, nullptr);
    }
    if (t.memory != VK_NULL_HANDLE) {
      vkFreeMemory(dev, t.memory, nullptr);  // also unmaps
    }
  }
}

namespace {

// The device's tensor limits: the emulation layer aborts the process on a tensor beyond
// them, so every tensor (bound or constant) is checked before anything is created.
Error check_tensor_limits(const VkPhysicalDeviceTensorPropertiesARM& limits, const VgfModel& model,
                          std::string* why) {
  for (size_t r = 0; r < model.resources.size(); ++r) {
    const TensorDescription& t = model.resources[r];
    bool fits = t.shape.size() <= limits.maxTensorDimensionCount && t.element_count <= limits.maxTensorElements &&
                t.nbytes <= limits.maxTensorSize;
    for (int64_t dim : t.shape) {
      fits = fits && static_cast<uint64_t>(dim) <= limits.maxPerDimensionTensorElements;
    }
    if (!fits) {
      return fail(why, Error::NotSupported,
                  text_printf("resource %zu (%s, %" PRIu64 " bytes) exceeds the device's tensor limits (rank %u, "
                              "%" PRIu64 " elements, %" PRIu64 " per dimension, %" PRIu64 " bytes)",
                              r, shape_string(t.shape.data(), t.shape.size()).c_str(), t.nbytes,
                              limits.maxTensorDimensionCount, limits.maxTensorElements,
                              limits.maxPerDimensionTensorElements, limits.maxTensorSize));
    }
  }
  return Error::Ok;
}

}  // namespace

VulkanGraph::VulkanGraph(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
VulkanGraph::~VulkanGraph() = default;

Error VulkanGraph::create(std::shared_ptr<VulkanDevice> device, const VgfModel& model,
                          std::unique_ptr<VulkanGraph>* graph, std::string* why) {
  if (device == nullptr) {
    return fail(why, Error::InvalidArgument, "no Vulkan device");
  }
  Error err = check_tensor_limits(device->impl_->tensor_limits, model, why);
  if (err != Error::Ok) {
    return err;
  }
  auto impl = std::make_unique<Impl>();
  impl->device = device->impl_.get();
  impl->owner = std::move(device);
  err = impl->create_tensors(model, why);
  for (size_t s = 0; err == Error::Ok && s < model.segments.size(); ++s) {
    err = impl->create_pipeline(model, model.segments[s], why);
  }
  if (err == Error::Ok) {
    err = impl->create_descriptor_sets(model, why);
  }
  if (err == Error::Ok) {
    err = impl->record_commands(why);
  }
  if (err != Error::Ok) {
    return err;  // impl's destructor releases what was built
  }
  graph->reset(new VulkanGraph(std::move(impl)));
  return Error::Ok;
}

size_t VulkanGraph::num_inputs() const {
  return impl_->inputs.size();
}

size_t VulkanGraph::num_outputs() const {
  return impl_->outputs.size();
}

const TensorDescription& VulkanGraph::input(size_t i) const {
  return impl_->tensors[impl_->inputs[i]].description;
}

const TensorDescription& VulkanGraph::output(size_t i) const {
  return impl_->tensors[impl_->outputs[i]].description;
}

uint8_t* VulkanGraph::input_data(size_t i) {
  return impl_->tensors[impl_->inputs[i]].mapped;
}

const uint8_t* VulkanGraph::output_data(size_t i) const {
  return impl_->tensors[impl_->outputs[i]].mapped;
}

double VulkanGraph::pipeline_seconds() const {
  return impl_->pipeline_seconds;
}

size_t VulkanGraph::staged_tensors() const {
  return static_cast<size_t>(std::count_if(impl_->tensors.begin(), impl_->tensors.end(),
                                           [](const Impl::Tensor& t) { return t.staging != VK_NULL_HANDLE; }));
}

Error VulkanGraph::run(std::string* why) {
  Impl& g = *impl_;
  VkDevice dev = g.device->device;
  if (g.pending) {
    // A run timed out: the device may still be executing it.
    const Error err = g.wait(why);
    if (err != Error::Ok) {
      return err;
    }
  }
  g.sync_host_memory(g.inputs, true);
  VkResult result = vkResetFences(dev, 1, &g.fence);
  if (result != VK_SUCCESS) {
    return vk_fail(why, "vkResetFences", result);
  }
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &g.commands;
  {
    std::lock_guard<std::mutex> lock(g.device->queue_mutex);
    result = vkQueueSubmit(g.device->queue, 1, &submit, g.fence);
  }
  if (result != VK_SUCCESS) {
    return vk_fail(why, "vkQueueSubmit", result);
  }
  g.pending = true;
  const Error err = g.wait(why);
  if (err != Error::Ok) {
    return err;
  }
  g.sync_host_memory(g.outputs, false);
  return Error::Ok;
}

}  // namespace vgf
}  // namespace etarm
