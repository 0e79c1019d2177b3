// MethodMeta and TensorInfo: metadata read straight from a verified ExecutionPlan.
#include <cstring>

#include <executorch/runtime/executor/method_meta.h>

#include "runtime/core/internal.h"

namespace executorch {
namespace ET_RUNTIME_NAMESPACE {

using etarm::core::as_table;
using etarm::core::span_of;
namespace fb = etarm::fb;

// --- TensorInfo -------------------------------------------------------------------

TensorInfo::TensorInfo(
    Span<const int32_t> sizes,
    Span<const uint8_t> dim_order,
    executorch::aten::ScalarType scalar_type,
    const bool is_memory_planned,
    std::string_view name,
    size_t nbytes)
    : sizes_(sizes),
      dim_order_(dim_order),
      name_(name),
      scalar_type_(scalar_type),
      is_memory_planned_(is_memory_planned),
      nbytes_(nbytes) {}

Result<TensorInfo> TensorInfo::create(
    Span<const int32_t> sizes,
    Span<const uint8_t> dim_order,
    executorch::aten::ScalarType scalar_type,
    const bool is_memory_planned,
    std::string_view name) {
  auto nbytes = internal::checked_nbytes(sizes, dim_order, scalar_type);
  if (!nbytes.ok()) {
    return nbytes.error();
  }
  return TensorInfo(sizes, dim_order, scalar_type, is_memory_planned, name, *nbytes);
}

Span<const int32_t> TensorInfo::sizes() const {
  return sizes_;
}
Span<const uint8_t> TensorInfo::dim_order() const {
  return dim_order_;
}
executorch::aten::ScalarType TensorInfo::scalar_type() const {
  return scalar_type_;
}
bool TensorInfo::is_memory_planned() const {
  return is_memory_planned_;
}
size_t TensorInfo::nbytes() const {
  return nbytes_;
}
std::string_view TensorInfo::name() const {
  return name_;
}

// --- MethodMeta -------------------------------------------------------------------

namespace {

fb::Table plan_of(const executorch_flatbuffer::ExecutionPlan* p) {
  return as_table(p);
}

// The serialized value behind inputs[index] / outputs[index].
Result<fb::Table> io_value(fb::Table plan, unsigned which, size_t index) {
  const fb::Vec io = plan.vec(which);
  ET_CHECK_OR_RETURN_ERROR(index < io.size(), InvalidArgument, "Index %zu out of range (%u)", index, io.size());
  const int32_t value_index = io.at<int32_t>(index);
  const fb::Vec values = plan.vec(fb::plan::values);
  ET_CHECK_OR_RETURN_ERROR(
      value_index >= 0 && static_cast<uint32_t>(value_index) < values.size(),
      InvalidProgram,
      "Value index %d out of range",
      value_index);
  return values.table(value_index);
}

// The tag of a value, or the error from finding it.
Result<Tag> tag_of(Result<fb::Table> value) {
  if (!value.ok()) {
    return value.error();
  }
  Tag tag;
  ET_CHECK_OR_RETURN_ERROR(
      etarm::core::kernel_type_to_tag(value->get<uint8_t>(fb::evalue::val_type), &tag),
      InvalidProgram,
      "Unknown value type");
  return tag;
}

std::string_view tensor_name(fb::Table tensor) {
  const fb::Table extra = tensor.table(fb::tensor::extra_tensor_info);
  const char* name = extra.str(fb::extra::fully_qualified_name);
  return name ? std::string_view(name, extra.str_len(fb::extra::fully_qualified_name)) : std::string_view();
}

struct InfoArgs {
  Span<const int32_t> sizes;
  Span<const uint8_t> dim_order;
  executorch::aten::ScalarType type;
  bool planned;
  std::string_view name;
};

Result<InfoArgs> tensor_info_args(fb::Table value) {
  ET_CHECK_OR_RETURN_ERROR(
      value.get<uint8_t>(fb::evalue::val_type) == static_cast<uint8_t>(fb::KT::Tensor),
      InvalidArgument,
      "Value is not a tensor");
  const fb::Table t = value.table(fb::evalue::val);
  return InfoArgs{
      span_of<int32_t>(t.vec(fb::tensor::sizes)),
      span_of<uint8_t>(t.vec(fb::tensor::dim_order)),
      static_cast<executorch::aten::ScalarType>(t.get<int8_t>(fb::tensor::scalar_type)),
      static_cast<bool>(t.table(fb::tensor::allocation_info)),
      tensor_name(t)};
}

// Attributes: named tensors whose data lives in the program (not external).
bool is_attribute(fb::Table value) {
  if (value.get<uint8_t>(fb::evalue::val_type) != static_cast<uint8_t>(fb::KT::Tensor)) {
    return false;
  }
  const fb::Table t = value.table(fb::evalue::val);
  const fb::Table extra = t.table(fb::tensor::extra_tensor_info);
  return extra && extra.str_len(fb::extra::fully_qualified_name) > 0 && extra.get<uint8_t>(fb::extra::location) == 0;
}

// Unique backend ids, in order of first use; returns the count and, if `want` names an
// index, sets *name to that backend's id.
size_t unique_backends(fb::Table plan, size_t want, const char** name) {
  const fb::Vec delegates = plan.vec(fb::plan::delegates);
  size_t count = 0;
  for (uint32_t i = 0; i < delegates.size(); ++i) {
    const char* id = delegates.table(i).str(fb::delegate::id);
    if (id == nullptr) {
      continue;
    }
    bool seen = false;
    for (uint32_t j = 0; j < i && !seen; ++j) {
      const char* other = delegates.table(j).str(fb::delegate::id);
      seen = other != nullptr && std::strcmp(other, id) == 0;
    }
    if (!seen) {
      if (count == want && name != nullptr) {
        *name = id;
      }
      ++count;
    }
  }
  return count;
}

} // namespace

MethodMeta::MethodMeta(const executorch_flatbuffer::ExecutionPlan* s_plan) : s_plan_(s_plan) {}

// TensorInfo::create is private to MethodMeta: this is how the helpers reach it.
#define tensor_meta(value_result)                                                                  \
  [&]() -> Result<TensorInfo> {                                                                  \
    Result<fb::Table> v__ = (value_result);                                                      \
    if (!v__.ok()) {                                                                             \
      return v__.error();                                                                        \
    }                                                                                            \
    auto a__ = tensor_info_args(*v__);                                                           \
    if (!a__.ok()) {                                                                             \
      return a__.error();                                                                        \
    }                                                                                            \
    return TensorInfo::create(a__->sizes, a__->dim_order, a__->type, a__->planned, a__->name); \
  }()

const char* MethodMeta::name() const {
  const char* n = plan_of(s_plan_).str(fb::plan::name);
  return n ? n : "";
}

size_t MethodMeta::num_inputs() const {
  return plan_of(s_plan_).vec(fb::plan::inputs).size();
}

Result<Tag> MethodMeta::input_tag(size_t index) const {
  return tag_of(io_value(plan_of(s_plan_), fb::plan::inputs, index));
}

Result<TensorInfo> MethodMeta::input_tensor_meta(size_t index) const {
  return tensor_meta(io_value(plan_of(s_plan_), fb::plan::inputs, index));
}

size_t MethodMeta::num_outputs() const {
  return plan_of(s_plan_).vec(fb::plan::outputs).size();
}

Result<Tag> MethodMeta::output_tag(size_t index) const {
  return tag_of(io_value(plan_of(s_plan_), fb::plan::outputs, index));
}

Result<TensorInfo> MethodMeta::output_tensor_meta(size_t index) const {
  return tensor_meta(io_value(plan_of(s_plan_), fb::plan::outputs, index));
}

size_t MethodMeta::num_attributes() const {
  const fb::Vec values = plan_of(s_plan_).vec(fb::plan::values);
  size_t count = 0;
  for (uint32_t i = 0; i < values.size(); ++i) {
    count += is_attribute(values.table(i));
  }
  return count;
}

Result<TensorInfo> MethodMeta::attribute_tensor_meta(size_t index) const {
  const fb::Vec values = plan_of(s_plan_).vec(fb::plan::values);
  size_t count = 0;
  for (uint32_t i = 0; i < values.size(); ++i) {
    if (is_attribute(values.table(i)) && count++ == index) {
      return tensor_meta(values.table(i));
    }
  }
  return Error::InvalidArgument;
}

size_t MethodMeta::num_memory_planned_buffers() const {
  // Entry 0 of non_const_buffer_sizes is reserved (constants).
  const uint32_t n = plan_of(s_plan_).vec(fb::plan::non_const_buffer_sizes).size();
  return n > 0 ? n - 1 : 0;
}

Result<int64_t> MethodMeta::memory_planned_buffer_size(size_t index) const {
  ET_CHECK_OR_RETURN_ERROR(
      index < num_memory_planned_buffers(), InvalidArgument, "Buffer index %zu out of range", index);
  const int64_t size = plan_of(s_plan_).vec(fb::plan::non_const_buffer_sizes).at<int64_t>(index + 1);
  ET_CHECK_OR_RETURN_ERROR(size >= 0, InvalidProgram, "Negative buffer size");
  return size;
}

Result<etensor::Device> MethodMeta::memory_planned_buffer_device(size_t index) const {
  ET_CHECK_OR_RETURN_ERROR(
      index < num_memory_planned_buffers(), InvalidArgument, "Buffer index %zu out of range", index);
  const fb::Vec devices = plan_of(s_plan_).vec(fb::plan::non_const_buffer_device);
  for (uint32_t i = 0; i < devices.size(); ++i) {
    const fb::Table d = devices.table(i);
    if (d.get<int32_t>(fb::buffer_device::buffer_idx) == static_cast<int64_t>(index) + 1) {
      const int8_t type = d.get<int8_t>(fb::buffer_device::device_type);
      ET_CHECK_OR_RETURN_ERROR(type == 0 || type == 1, InvalidProgram, "Unknown device type %d", type);
      return etensor::Device(
          static_cast<etensor::DeviceType>(type), d.get<int8_t>(fb::buffer_device::device_index));
    }
  }
  return etensor::Device(etensor::DeviceType::CPU, 0);
}

bool MethodMeta::uses_backend(const char* backend_name) const {
  const fb::Vec delegates = plan_of(s_plan_).vec(fb::plan::delegates);
  for (uint32_t i = 0; backend_name != nullptr && i < delegates.size(); ++i) {
    const char* id = delegates.table(i).str(fb::delegate::id);
    if (id != nullptr && std::strcmp(id, backend_name) == 0) {
      return true;
    }
  }
  return false;
}

size_t MethodMeta::num_backends() const {
  return unique_backends(plan_of(s_plan_), SIZE_MAX, nullptr);
}

Result<const char*> MethodMeta::get_backend_name(size_t index) const {
  const char* name = nullptr;
  unique_backends(plan_of(s_plan_), index, &name);
  ET_CHECK_OR_RETURN_ERROR(name != nullptr, InvalidArgument, "Backend index %zu out of range", index);
  return name;
}

size_t MethodMeta::num_instructions() const {
  const fb::Vec chains = plan_of(s_plan_).vec(fb::plan::chains);
  size_t n = 0;
  for (uint32_t i = 0; i < chains.size(); ++i) {
    n += chains.table(i).vec(fb::chain::instructions).size();
  }
  return n;
}

} // namespace ET_RUNTIME_NAMESPACE
} // namespace executorch
