#include "runtime/vgf/vgf_model.h"

#include <vulkan/vulkan_core.h>

#include <cinttypes>
#include <cstring>
#include <memory>
#include <optional>
#include <set>
#include <utility>

#include "runtime/vgf/text.h"
#include "vgf/decoder.hpp"

namespace etarm {
namespace vgf {
namespace {

namespace vgflib = mlsdk::vgflib;

// Bounds on counts, far above what a converter emits for any network, so that a garbled
// table cannot make the reader allocate or loop without end.
constexpr size_t kMaxEntries = 1 << 16;
// Largest tensor: TOSA's and Vulkan's shapes are 32-bit per dimension; the whole payload
// of a real network stays far below this.
constexpr uint64_t kMaxTensorBytes = uint64_t{1} << 32;

Error fail(std::string* why, Error error, std::string reason) {
  *why = std::move(reason);
  return error;
}

struct Section {
  const char* name;
  uint64_t offset;
  uint64_t size;
};

// True when [view.data(), view.data() + view.size()) lies inside the section.
template <typename T>
bool view_inside(const vgflib::DataView<T>& view, const uint8_t* section, uint64_t section_size) {
  const uintptr_t begin = reinterpret_cast<uintptr_t>(view.data());
  const uintptr_t lo = reinterpret_cast<uintptr_t>(section);
  if (view.size() == 0) {
    return true;
  }
  if (view.data() == nullptr || begin < lo || view.size() > section_size / sizeof(T)) {
    return false;
  }
  return begin - lo <= section_size - view.size() * sizeof(T);
}

std::string category_name(Category c) {
  switch (c) {
    case Category::kInput:
      return "input";
    case Category::kOutput:
      return "output";
    case Category::kIntermediate:
      return "intermediate";
    case Category::kConstant:
      return "constant";
  }
  return "?";
}

Error read_resources(const vgflib::ModelResourceTableDecoder& table, VgfModel* model, std::string* why) {
  const size_t count = table.size();
  if (count > kMaxEntries) {
    return fail(why, Error::InvalidProgram, text_printf("the resource table has %zu entries", count));
  }
  model->resources.resize(count);
  for (uint32_t i = 0; i < count; ++i) {
    TensorDescription& t = model->resources[i];
    switch (table.getCategory(i)) {
      case vgflib::ResourceCategory::INPUT:
        t.category = Category::kInput;
        break;
      case vgflib::ResourceCategory::OUTPUT:
        t.category = Category::kOutput;
        break;
      case vgflib::ResourceCategory::INTERMEDIATE:
        t.category = Category::kIntermediate;
        break;
      case vgflib::ResourceCategory::CONSTANT:
        t.category = Category::kConstant;
        break;
      default:
        return fail(why, Error::InvalidProgram, text_printf("resource %u has an unknown category", i));
    }
    const std::optional<vgflib::DescriptorType> descriptor = table.getDescriptorType(i);
    if (descriptor.has_value() && *descriptor != VK_DESCRIPTOR_TYPE_TENSOR_ARM) {
      return fail(why, Error::NotSupported,
                  text_printf("resource %u has descriptor type %d; only tensors (VK_DESCRIPTOR_TYPE_TENSOR_ARM) "
                                "are supported",
                                i, static_cast<int>(*descriptor)));
    }
    t.bindable = descriptor.has_value();
    t.vk_format = table.getVkFormat(i);
    t.element_size = format_element_size(t.vk_format);
    if (t.element_size == 0) {
      return fail(why, Error::NotSupported,
                  text_printf("resource %u has format %s, which this runtime does not handle", i,
                                format_name(t.vk_format).c_str()));
    }
    const vgflib::DataView<int64_t> shape = table.getTensorShape(i);
    if (shape.size() == 0 || shape.size() > kMaxRank) {
      return fail(why, shape.size() == 0 ? Error::NotSupported : Error::InvalidProgram,
                  text_printf("resource %u has rank %zu (1 to %zu supported)", i, shape.size(), kMaxRank));
    }
    uint64_t elements = 1;
    for (uint32_t d = 0; d < shape.size(); ++d) {
      const int64_t dim = shape[d];
      if (dim < 1) {
        return fail(why, dim == -1 ? Error::NotSupported : Error::InvalidProgram,
                    text_printf("resource %u has dimension %u of size %" PRId64 "%s", i, d, dim,
                                dim == -1 ? " (unshaped tensors are not supported)" : ""));
      }
      if (static_cast<uint64_t>(dim) > kMaxTensorBytes / elements) {
        return fail(why, Error::InvalidProgram, text_printf("resource %u has more than 2^32 elements", i));
      }
      elements *= static_cast<uint64_t>(dim);
      t.shape.push_back(dim);
    }
    if (elements > kMaxTensorBytes / t.element_size) {
      return fail(why, Error::InvalidProgram, text_printf("resource %u is larger than 4 GiB", i));
    }
    t.element_count = elements;
    t.nbytes = elements * t.element_size;
    // Explicit strides must describe the packed layout the runtime copies in and out.
    const vgflib::DataView<int64_t> stride = table.getTensorStride(i);
    if (stride.size() != 0) {
      bool packed = stride.size() == shape.size();
      int64_t expected = t.element_size;
      for (size_t d = shape.size(); packed && d-- > 0;) {
        packed = stride[static_cast<uint32_t>(d)] == expected;
        expected *= shape[static_cast<uint32_t>(d)];
      }
      if (!packed) {
        return fail(why, Error::NotSupported, text_printf("resource %u has non-packed strides", i));
      }
    }
  }
  return Error::Ok;
}

// SPIR-V's physical layout: the header (magic, version, generator, id bound, 0), then
// instructions whose first word holds their word count, which must tile the module exactly.
// What the empty result promises is only this framing: the device's compiler requires a
// valid module, which a full validator would have to establish (docs/vgf_runtime.md).
std::string check_spirv_framing(const uint32_t* words, size_t count) {
  constexpr uint32_t kMagic = 0x07230203;
  constexpr size_t kHeaderWords = 5;
  if (count < kHeaderWords || words[0] != kMagic) {
    return "no SPIR-V header";
  }
  if (words[3] == 0 || words[4] != 0) {
    return text_printf("header with id bound %u and schema %u", words[3], words[4]);
  }
  size_t at = kHeaderWords;
  while (at < count) {
    const uint32_t word_count = words[at] >> 16;
    if (word_count == 0 || word_count > count - at) {
      return text_printf("the instruction at word %zu has word count %u (%zu words left)", at, word_count, count - at);
    }
    at += word_count;
  }
  return "";
}

Error read_modules(const vgflib::ModuleTableDecoder& table, const uint8_t* section, uint64_t section_size,
                   VgfModel* model, std::string* why) {
  const size_t count = table.size();
  if (count > kMaxEntries) {
    return fail(why, Error::InvalidProgram, text_printf("the module table has %zu entries", count));
  }
  model->modules.resize(count);
  for (uint32_t i = 0; i < count; ++i) {
    Module& m = model->modules[i];
    m.name = std::string(table.getModuleName(i));
    if (table.getModuleType(i) != vgflib::ModuleType::GRAPH) {
      continue;  // compute modules are refused where a segment uses one
    }
    if (!table.isSPIRV(i) || !table.hasSPIRVCode(i)) {
      return fail(why, Error::NotSupported,
                  text_printf("module %u (%s) carries no SPIR-V code", i, m.name.c_str()));
    }
    const vgflib::DataView<uint32_t> code = table.getSPIRVModuleCode(i);
    if (code.size() == 0 || !view_inside(code, section, section_size)) {
      return fail(why, Error::InvalidProgram,
                  text_printf("module %u's SPIR-V code lies outside the module table", i));
    }
    const std::string framing = check_spirv_framing(code.data(), code.size());
    if (!framing.empty()) {
      return fail(why, Error::InvalidProgram, text_printf("module %u's SPIR-V: %s", i, framing.c_str()));
    }
    m.spirv = code.data();
    m.spirv_words = code.size();
    m.entry_point = std::string(table.getModuleEntryPoint(i));
    if (m.entry_point.empty()) {
      return fail(why, Error::InvalidProgram, text_printf("module %u has no entry point", i));
    }
  }
  return Error::Ok;
}

Error read_slots(const vgflib::ModelSequenceTableDecoder& table, vgflib::BindingSlotArrayHandle handle,
                 const VgfModel& model, const char* what, std::vector<BindingSlot>* slots, std::string* why) {
  const size_t count = handle != nullptr ? table.getBindingsSize(handle) : 0;
  if (count > kMaxEntries) {
    return fail(why, Error::InvalidProgram, text_printf("%s has %zu bindings", what, count));
  }
  for (uint32_t k = 0; k < count; ++k) {
    BindingSlot slot;
    slot.binding = table.getBindingSlotBinding(handle, k);
    slot.resource = table.getBindingSlotMrtIndex(handle, k);
    if (slot.resource >= model.resources.size()) {
      return fail(why, Error::InvalidProgram,
                  text_printf("%s binding %u names resource %u of %zu", what, k, slot.resource,
                                model.resources.size()));
    }
    const TensorDescription& t = model.resources[slot.resource];
    if (!t.bindable || t.category == Category::kConstant) {
      return fail(why, Error::InvalidProgram,
                  text_printf("%s binding %u names resource %u, a %s that cannot be bound", what, k, slot.resource,
                                category_name(t.category).c_str()));
    }
    slots->push_back(slot);
  }
  return Error::Ok;
}

Error read_segments(const vgflib::ModelSequenceTableDecoder& table, VgfModel* model, std::string* why) {
  const size_t count = table.modelSequenceTableSize();
  if (count == 0 || count > kMaxEntries) {
    return fail(why, Error::InvalidProgram, text_printf("the model sequence has %zu segments", count));
  }
  model->segments.resize(count);
  for (uint32_t s = 0; s < count; ++s) {
    Segment& segment = model->segments[s];
    segment.name = std::string(table.getSegmentName(s));
    if (table.getSegmentType(s) != vgflib::ModuleType::GRAPH) {
      return fail(why, Error::NotSupported,
                  text_printf("segment %u (%s) is a compute shader; only graph segments are supported", s,
                                segment.name.c_str()));
    }
    segment.module = table.getSegmentModuleIndex(s);
    if (segment.module >= model->modules.size() || model->modules[segment.module].spirv == nullptr) {
      return fail(why, Error::InvalidProgram,
                  text_printf("segment %u names module %u, which is not a graph module of the %zu", s,
                                segment.module, model->modules.size()));
    }
    const size_t sets = table.getSegmentDescriptorSetInfosSize(s);
    if (sets > kMaxEntries) {
      return fail(why, Error::InvalidProgram, text_printf("segment %u has %zu descriptor sets", s, sets));
    }
    std::set<std::pair<uint32_t, uint32_t>> seen;
    for (uint32_t d = 0; d < sets; ++d) {
      DescriptorSetInfo info;
      info.set = table.getSegmentDescriptorSetIndex(s, d);
      const std::string what = text_printf("segment %u descriptor set %u", s, info.set);
      Error err = read_slots(table, table.getDescriptorBindingSlotsHandle(s, d), *model, what.c_str(),
                             &info.bindings, why);
      if (err != Error::Ok) {
        return err;
      }
      for (const BindingSlot& slot : info.bindings) {
        if (!seen.insert({info.set, slot.binding}).second) {
          return fail(why, Error::InvalidProgram, text_printf("%s binds binding %u twice", what.c_str(), slot.binding));
        }
      }
      segment.descriptor_sets.push_back(std::move(info));
    }
    // Descriptor set numbers index the pipeline layout's array of set layouts.
    if (!seen.empty() && seen.rbegin()->first >= 32) {
      return fail(why, Error::InvalidProgram,
                  text_printf("segment %u uses descriptor set %u (at most 31)", s, seen.rbegin()->first));
    }
    const vgflib::GraphConstantBindingArrayHandle constants = table.getSegmentConstantBindingsHandle(s);
    const size_t num_constants = constants != nullptr ? table.getGraphConstantBindingsSize(constants) : 0;
    if (num_constants > kMaxEntries) {
      return fail(why, Error::InvalidProgram, text_printf("segment %u has %zu constants", s, num_constants));
    }
    std::set<uint32_t> ids;
    for (uint32_t c = 0; c < num_constants; ++c) {
      const vgflib::GraphConstantBinding binding = table.getGraphConstantBinding(constants, c);
      if (binding.constantIndex >= model->constants.size() || !ids.insert(binding.graphConstantId).second) {
        return fail(why, Error::InvalidProgram,
                    text_printf("segment %u constant %u (id %u) names constant %u of %zu, or repeats its id", s, c,
                                  binding.graphConstantId, binding.constantIndex, model->constants.size()));
      }
      segment.constants.push_back({binding.graphConstantId, binding.constantIndex});
    }
  }
  Error err = read_slots(table, table.getModelSequenceInputBindingSlotsHandle(), *model, "the model sequence's inputs",
                         &model->inputs, why);
  if (err == Error::Ok) {
    err = read_slots(table, table.getModelSequenceOutputBindingSlotsHandle(), *model, "the model sequence's outputs",
                     &model->outputs, why);
  }
  if (err != Error::Ok) {
    return err;
  }
  if (model->outputs.empty()) {
    return fail(why, Error::InvalidProgram, "the model sequence has no outputs");
  }
  for (const auto* list : {&model->inputs, &model->outputs}) {
    const Category expected = list == &model->inputs ? Category::kInput : Category::kOutput;
    for (size_t k = 0; k < list->size(); ++k) {
      const TensorDescription& t = model->resources[(*list)[k].resource];
      if (t.category != expected) {
        return fail(why, Error::InvalidProgram,
                    text_printf("model sequence %s %zu is resource %u, an %s", category_name(expected).c_str(), k,
                                  (*list)[k].resource, category_name(t.category).c_str()));
      }
    }
  }
  return Error::Ok;
}

Error read_constants(const vgflib::ConstantDecoder& decoder, const uint8_t* section, uint64_t section_size,
                     VgfModel* model, std::string* why) {
  const size_t count = decoder.size();
  if (count > kMaxEntries) {
    return fail(why, Error::InvalidProgram, text_printf("the constant section has %zu entries", count));
  }
  for (uint32_t c = 0; c < count; ++c) {
    Constant constant;
    constant.resource = decoder.getConstantMrtIndex(c);
    if (constant.resource >= model->resources.size() ||
        model->resources[constant.resource].category != Category::kConstant) {
      return fail(why, Error::InvalidProgram,
                  text_printf("constant %u names resource %u, which is not a constant of the %zu resources", c,
                                constant.resource, model->resources.size()));
    }
    if (decoder.isSparseConstant(c)) {
      return fail(why, Error::NotSupported, text_printf("constant %u is sparse", c));
    }
    const vgflib::DataView<uint8_t> data = decoder.getConstant(c);
    const uint64_t nbytes = model->resources[constant.resource].nbytes;
    if (!view_inside(data, section, section_size) || data.size() != nbytes) {
      return fail(why, Error::InvalidProgram,
                  text_printf("constant %u holds %zu bytes (its tensor has %" PRIu64
                                ") or lies outside the constant section",
                                c, data.size(), nbytes));
    }
    constant.data = data.data();
    model->constants.push_back(constant);
  }
  return Error::Ok;
}

}  // namespace

uint32_t format_element_size(int32_t vk_format) {
  switch (vk_format) {
    case VK_FORMAT_R8_BOOL_ARM:
    case VK_FORMAT_R8_UINT:
    case VK_FORMAT_R8_SINT:
      return 1;
    case VK_FORMAT_R16_UINT:
    case VK_FORMAT_R16_SINT:
    case VK_FORMAT_R16_SFLOAT:
      return 2;
    case VK_FORMAT_R32_UINT:
    case VK_FORMAT_R32_SINT:
    case VK_FORMAT_R32_SFLOAT:
      return 4;
    case VK_FORMAT_R64_SINT:
      return 8;
    default:
      return 0;
  }
}

std::string format_name(int32_t vk_format) {
  switch (vk_format) {
    case VK_FORMAT_R8_BOOL_ARM:
      return "VK_FORMAT_R8_BOOL_ARM";
    case VK_FORMAT_R8_UINT:
      return "VK_FORMAT_R8_UINT";
    case VK_FORMAT_R8_SINT:
      return "VK_FORMAT_R8_SINT";
    case VK_FORMAT_R16_UINT:
      return "VK_FORMAT_R16_UINT";
    case VK_FORMAT_R16_SINT:
      return "VK_FORMAT_R16_SINT";
    case VK_FORMAT_R16_SFLOAT:
      return "VK_FORMAT_R16_SFLOAT";
    case VK_FORMAT_R32_UINT:
      return "VK_FORMAT_R32_UINT";
    case VK_FORMAT_R32_SINT:
      return "VK_FORMAT_R32_SINT";
    case VK_FORMAT_R32_SFLOAT:
      return "VK_FORMAT_R32_SFLOAT";
    case VK_FORMAT_R64_SINT:
      return "VK_FORMAT_R64_SINT";
    default:
      return text_printf("VkFormat %d", vk_format);
  }
}

Error parse_vgf(const uint8_t* data, size_t size, VgfModel* model, std::string* why) {
  *model = VgfModel{};
  if (data == nullptr || reinterpret_cast<uintptr_t>(data) % kPayloadAlignment != 0) {
    return fail(why, Error::InvalidArgument, "the payload is not 8-byte aligned");
  }
  const size_t header_size = vgflib::HeaderSize();
  if (size < header_size) {
    return fail(why, Error::InvalidProgram,
                text_printf("not a VGF file: %zu bytes, shorter than the %zu-byte header", size, header_size));
  }
  if (std::memcmp(data, "VGF1", 4) != 0) {
    return fail(why, Error::InvalidProgram, "not a VGF file: no magic \"VGF1\"");
  }
  const std::unique_ptr<vgflib::HeaderDecoder> header = vgflib::CreateHeaderDecoder(data, header_size, size);
  if (header == nullptr || !header->IsValid()) {
    return fail(why, Error::InvalidProgram, "the VGF header is not valid");
  }
  model->version[0] = header->GetMajor();
  model->version[1] = header->GetMinor();
  model->version[2] = header->GetPatch();
  if (!header->CheckVersion()) {
    return fail(why, Error::NotSupported,
                text_printf("VGF version %u.%u.%u is not one this runtime's VGF library reads", model->version[0],
                              model->version[1], model->version[2]));
  }
  const Section sections[] = {
      {"module table", header->GetModuleTableOffset(), header->GetModuleTableSize()},
      {"model sequence table", header->GetModelSequenceTableOffset(), header->GetModelSequenceTableSize()},
      {"model resource table", header->GetModelResourceTableOffset(), header->GetModelResourceTableSize()},
      {"constant section", header->GetConstantsOffset(), header->GetConstantsSize()},
  };
  for (const Section& s : sections) {
    if (s.offset < header_size || s.offset > size || s.size > size - s.offset || s.offset % kPayloadAlignment != 0) {
      return fail(why, Error::InvalidProgram,
                  text_printf("the %s (offset %" PRIu64 ", %" PRIu64 " bytes) lies outside the %zu-byte payload or "
                                "is misaligned",
                                s.name, s.offset, s.size, size));
    }
  }
  const uint8_t* modules_at = data + sections[0].offset;
  const uint8_t* constants_at = data + sections[3].offset;
  const auto modules = vgflib::CreateModuleTableDecoder(modules_at, sections[0].size);
  const auto sequence = vgflib::CreateModelSequenceTableDecoder(data + sections[1].offset, sections[1].size);
  const auto resources = vgflib::CreateModelResourceTableDecoder(data + sections[2].offset, sections[2].size);
  const auto constants = vgflib::CreateConstantDecoder(constants_at, sections[3].size);
  const void* decoders[] = {modules.get(), sequence.get(), resources.get(), constants.get()};
  for (size_t k = 0; k < 4; ++k) {
    if (decoders[k] == nullptr) {
      return fail(why, Error::InvalidProgram, text_printf("the %s is not valid", sections[k].name));
    }
  }
  Error err = read_resources(*resources, model, why);
  if (err == Error::Ok) {
    err = read_modules(*modules, modules_at, sections[0].size, model, why);
  }
  if (err == Error::Ok) {
    err = read_constants(*constants, constants_at, sections[3].size, model, why);
  }
  if (err == Error::Ok) {
    err = read_segments(*sequence, model, why);
  }
  return err;
}

}  // namespace vgf
}  // namespace etarm
