// The validating reader of .vgf files (the VgfBackend payload: the ML SDK model-converter's
// output, magic "VGF1"). parse_vgf() checks the header's section offsets and sizes against
// the payload before the VGF library (mlsdk::vgflib) decodes any section, then checks every
// index, count, format and shape the decoders return, so that the Vulkan side
// (vulkan_graph.h) only ever sees a consistent model. docs/vgf_runtime.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <executorch/runtime/core/error.h>

namespace etarm {
namespace vgf {

using executorch::runtime::Error;

// The decoder reads 64-bit fields in place: payloads must start at this alignment.
constexpr size_t kPayloadAlignment = 8;
// TOSA tensors have at most rank 6 (devices may allow less: VulkanGraph checks their limits).
constexpr size_t kMaxRank = 6;

enum class Category { kInput, kOutput, kIntermediate, kConstant };

// An entry of the model resource table: a tensor, packed in row-major order.
struct TensorDescription {
  int32_t vk_format = 0;  // a VkFormat
  uint32_t element_size = 0;
  Category category = Category::kIntermediate;
  bool bindable = false;  // VK_DESCRIPTOR_TYPE_TENSOR_ARM (graph inputs, outputs, intermediates)
  std::vector<int64_t> shape;  // rank 1..kMaxRank, every dimension >= 1
  uint64_t element_count = 0;
  uint64_t nbytes = 0;
};

// A tensor bound to a (descriptor set, binding) of a segment, or a model sequence input or
// output (binding only). `resource` indexes VgfModel::resources.
struct BindingSlot {
  uint32_t binding = 0;
  uint32_t resource = 0;
};

struct DescriptorSetInfo {
  uint32_t set = 0;
  std::vector<BindingSlot> bindings;
};

// A graph constant of a segment: the SPIR-V graph's constant `id` takes constant `constant`.
struct GraphConstant {
  uint32_t id = 0;
  uint32_t constant = 0;
};

struct Module {
  std::string name;
  std::string entry_point;
  const uint32_t* spirv = nullptr;  // inside the payload
  size_t spirv_words = 0;
};

// A segment of the model sequence: one data-graph pipeline.
struct Segment {
  std::string name;
  uint32_t module = 0;
  std::vector<DescriptorSetInfo> descriptor_sets;
  std::vector<GraphConstant> constants;
};

struct Constant {
  uint32_t resource = 0;
  const uint8_t* data = nullptr;  // inside the payload, resources[resource].nbytes bytes
};

struct VgfModel {
  uint8_t version[3] = {0, 0, 0};
  std::vector<Module> modules;
  std::vector<TensorDescription> resources;
  std::vector<Constant> constants;
  std::vector<Segment> segments;
  // The model sequence's inputs and outputs: the order of the TOSA graph's inputs and
  // outputs, and so of the delegate call's arguments.
  std::vector<BindingSlot> inputs;
  std::vector<BindingSlot> outputs;
};

// Decodes and validates the .vgf in [data, data + size). `data` must be kPayloadAlignment
// aligned and outlive `model` (modules and constants point into it). On failure returns
// InvalidProgram (malformed) or NotSupported (valid VGF this runtime cannot run: compute
// segments, sparse constants, unshaped or strided tensors, unknown formats) and sets *why.
Error parse_vgf(const uint8_t* data, size_t size, VgfModel* model, std::string* why);

// The element size of a tensor VkFormat, 0 for a format this runtime does not handle.
uint32_t format_element_size(int32_t vk_format);

// "VK_FORMAT_R8_SINT" for the formats format_element_size() knows, else "VkFormat <n>".
std::string format_name(int32_t vk_format);

}  // namespace vgf
}  // namespace etarm
