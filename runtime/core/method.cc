// Method: turns a verified ExecutionPlan into EValues, initialised delegates and decoded
// instructions (all in the method allocator), then executes them.
//
// Every index read from the program is range-checked here, once, at load time; the
// execution loop only runs decoded instructions.
#include <cstring>

#include <c10/util/safe_numerics.h>
#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/core/exec_aten/util/dim_order_util.h>
#include <executorch/runtime/core/exec_aten/util/tensor_util.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/platform_memory_allocator.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>

#include "runtime/core/internal.h"

namespace executorch {
namespace ET_RUNTIME_NAMESPACE {

using etarm::core::as_table;
using etarm::core::span_of;
namespace fb = etarm::fb;

namespace deserialization {
// An external constant, loaded once per method from the NamedDataMap.
struct NamedData {
  const char* key;
  FreeableBuffer buffer;
};
} // namespace deserialization

// One decoded instruction.
struct Instruction {
  OpFunction kernel; // KernelCall
  EValue** args; // KernelCall / DelegateCall
  uint32_t n_args;
  uint32_t a; // op / delegate / move_from / cond / value index
  uint32_t b; // move_to / jump destination
  uint8_t kind; // fb::IA
};

struct Chain {
  Instruction* instructions;
  size_t n_instructions;
};

class BackendDelegate final {
 public:
  BackendDelegate(BackendInterface* backend, FreeableBuffer&& processed)
      : backend_(backend), handle_(nullptr), processed_(std::move(processed)) {}
  ~BackendDelegate() {
    if (handle_ != nullptr) {
      backend_->destroy(handle_);
    }
  }
  BackendInterface* backend_;
  DelegateHandle* handle_;
  FreeableBuffer processed_;
};

namespace {

constexpr size_t kMaxOperatorNameLength = 128;
constexpr size_t kMaxKernelKeyTensors = 32;

template <typename T>
T* alloc_list(MemoryAllocator* allocator, size_t n) {
  return n == 0 ? nullptr : allocator->allocateList<T>(n);
}

fb::Table plan_of(const executorch_flatbuffer::ExecutionPlan* p) {
  return as_table(p);
}

bool value_index_ok(int64_t index, size_t n) {
  return index >= 0 && static_cast<uint64_t>(index) < n;
}

// The tensor table behind a serialized value, or an absent table.
fb::Table serialized_tensor(fb::Table plan, size_t value_index) {
  const fb::Table v = plan.vec(fb::plan::values).table(value_index);
  if (v.get<uint8_t>(fb::evalue::val_type) != static_cast<uint8_t>(fb::KT::Tensor)) {
    return fb::Table{};
  }
  return v.table(fb::evalue::val);
}

// Copies the `n` values get(0..n-1) into `out` (room for `length`); the rest become None.
template <typename Get>
Error copy_values(EValue* out, size_t length, size_t n, const char* what, Get get) {
  ET_CHECK_OR_RETURN_ERROR(out != nullptr && length >= n, InvalidArgument, "Room for %zu %s, %zu needed", length, what, n);
  for (size_t i = 0; i < length; ++i) {
    out[i] = i < n ? get(i) : EValue();
  }
  return Error::Ok;
}

bool is_external(fb::Table tensor) {
  const fb::Table extra = tensor.table(fb::tensor::extra_tensor_info);
  return extra && extra.get<uint8_t>(fb::extra::location) == 1;
}

} // namespace

// --- loading ------------------------------------------------------------------------

Result<Method> Method::load(
    executorch_flatbuffer::ExecutionPlan* s_plan,
    const Program* program,
    MemoryManager* memory_manager,
    EventTracer* event_tracer,
    const NamedDataMap* named_data_map,
    const LoadBackendOptionsMap* backend_options,
    Span<const Kernel> kernel_registry) {
  ET_CHECK_OR_RETURN_ERROR(
      memory_manager != nullptr && memory_manager->method_allocator() != nullptr,
      InvalidArgument,
      "A method allocator is required");
  MemoryAllocator* temp_allocator = memory_manager->temp_allocator();
  if (temp_allocator == nullptr) {
    // Kernels' scratch memory then comes from et_pal_allocate().
    auto* p = memory_manager->method_allocator()->allocateInstance<internal::PlatformMemoryAllocator>();
    ET_CHECK_OR_RETURN_ERROR(p != nullptr, MemoryAllocationFailed, "No memory for the temp allocator");
    temp_allocator = new (p) internal::PlatformMemoryAllocator();
  }
  Method method(program, memory_manager, event_tracer, temp_allocator, kernel_registry);
  const Error err = method.init(s_plan, named_data_map, backend_options);
  if (err != Error::Ok) {
    return err;
  }
  return Result<Method>(std::move(method));
}

Result<size_t> Method::get_num_external_constants() {
  const fb::Vec values = plan_of(serialization_plan_).vec(fb::plan::values);
  size_t n = 0;
  for (uint32_t i = 0; i < values.size(); ++i) {
    const fb::Table t = serialized_tensor(plan_of(serialization_plan_), i);
    n += t && is_external(t) && !t.table(fb::tensor::allocation_info);
  }
  return n;
}

Error Method::parse_external_constants(const NamedDataMap* named_data_map) {
  auto count = get_num_external_constants();
  if (!count.ok() || *count == 0) {
    return count.error();
  }
  ET_CHECK_OR_RETURN_ERROR(
      named_data_map != nullptr, InvalidExternalData, "The program has external constants but no data map was given");
  external_constants_ = alloc_list<NamedData>(memory_manager_->method_allocator(), *count);
  ET_CHECK_OR_RETURN_ERROR(external_constants_ != nullptr, MemoryAllocationFailed, "No memory for external constants");
  const fb::Table plan = plan_of(serialization_plan_);
  const uint32_t n_values = plan.vec(fb::plan::values).size();
  for (uint32_t i = 0; i < n_values; ++i) {
    const fb::Table t = serialized_tensor(plan, i);
    if (!t || !is_external(t) || t.table(fb::tensor::allocation_info)) {
      continue;
    }
    const char* key = t.table(fb::tensor::extra_tensor_info).str(fb::extra::fully_qualified_name);
    ET_CHECK_OR_RETURN_ERROR(key != nullptr && key[0] != '\0', InvalidProgram, "External tensor without a name");
    bool seen = false;
    for (size_t j = 0; j < n_external_constants_ && !seen; ++j) {
      seen = std::strcmp(external_constants_[j].key, key) == 0;
    }
    if (seen) {
      continue;
    }
    auto data = named_data_map->get_data(key);
    ET_CHECK_OR_RETURN_ERROR(data.ok(), InvalidExternalData, "External data '%s' not found", key);
    NamedData* slot = &external_constants_[n_external_constants_];
    slot->key = key;
    new (&slot->buffer) FreeableBuffer(std::move(*data));
    ++n_external_constants_;
  }
  return Error::Ok;
}

namespace deserialization {

// Builds tensors from serialized ones (a friend of Program, for mutable segments).
class TensorParser {
 public:
  const Program* program;
  MemoryManager* memory;
  deserialization::NamedData* externals;
  size_t n_externals;
  const NamedDataMap* data_map;

  Result<void*> data_for(fb::Table t, size_t nbytes) const {
    const fb::Table alloc_info = t.table(fb::tensor::allocation_info);
    const fb::Table extra = t.table(fb::tensor::extra_tensor_info);
    const uint32_t buffer_idx = t.get<uint32_t>(fb::tensor::data_buffer_idx);
    if (alloc_info) {
      const uint32_t memory_id = alloc_info.get<uint32_t>(fb::alloc::memory_id);
      const uint64_t offset = alloc_info.get<uint32_t>(fb::alloc::memory_offset_low) |
          (static_cast<uint64_t>(alloc_info.get<uint32_t>(fb::alloc::memory_offset_high)) << 32);
      HierarchicalAllocator* planned = memory->planned_memory();
      ET_CHECK_OR_RETURN_ERROR(planned != nullptr, InvalidArgument, "The method needs planned memory");
      // Memory id 0 is reserved: planned buffer k is memory id k + 1.
      ET_CHECK_OR_RETURN_ERROR(memory_id > 0 && offset <= SIZE_MAX, InvalidProgram, "Invalid memory id %u", memory_id);
      auto addr = planned->get_offset_address(memory_id - 1, static_cast<size_t>(offset), nbytes);
      if (!addr.ok()) {
        return addr.error();
      }
      if (extra && extra.get<uint8_t>(fb::extra::location) == 1) {
        const char* key = extra.str(fb::extra::fully_qualified_name);
        ET_CHECK_OR_RETURN_ERROR(data_map != nullptr && key != nullptr, InvalidExternalData, "No external data");
        const Error err = data_map->load_data_into(key, *addr, nbytes);
        ET_CHECK_OR_RETURN_ERROR(err == Error::Ok, InvalidExternalData, "Loading external data '%s' failed", key);
      } else if (buffer_idx > 0) {
        // Initial state of a mutable tensor.
        const uint64_t list = extra ? extra.get<uint64_t>(fb::extra::mutable_data_segments_idx) : 0;
        ET_CHECK_OR_RETURN_ERROR(list <= SIZE_MAX, InvalidProgram, "Invalid mutable segment");
        const Error err = program->load_mutable_subsegment_into(static_cast<size_t>(list), buffer_idx, nbytes, *addr);
        if (err != Error::Ok) {
          return err;
        }
      }
      return *addr;
    }
    if (extra && extra.get<uint8_t>(fb::extra::location) == 1) {
      const char* key = extra.str(fb::extra::fully_qualified_name);
      for (size_t i = 0; key != nullptr && i < n_externals; ++i) {
        if (std::strcmp(externals[i].key, key) == 0) {
          ET_CHECK_OR_RETURN_ERROR(
              externals[i].buffer.size() >= nbytes, InvalidExternalData, "External data '%s' is too small", key);
          return const_cast<void*>(externals[i].buffer.data());
        }
      }
      return Error::InvalidExternalData;
    }
    if (buffer_idx > 0) {
      auto data = program->get_constant_buffer_data(buffer_idx, nbytes);
      if (!data.ok()) {
        return data.error();
      }
      return const_cast<void*>(*data);
    }
    return nullptr; // Set later: a method input, or by the delegate / kernel.
  }

  Result<executorch::aten::Tensor> parse(fb::Table t) const {
    MemoryAllocator* allocator = memory->method_allocator();
    const auto type = static_cast<executorch::aten::ScalarType>(t.get<int8_t>(fb::tensor::scalar_type));
    const Span<const int32_t> sizes = span_of<int32_t>(t.vec(fb::tensor::sizes));
    const Span<const uint8_t> dim_order = span_of<uint8_t>(t.vec(fb::tensor::dim_order));
    auto nbytes = internal::checked_nbytes(sizes, dim_order, type);
    if (!nbytes.ok()) {
      return nbytes.error();
    }
    const uint8_t dynamism = t.get<uint8_t>(fb::tensor::shape_dynamism);
    ET_CHECK_OR_RETURN_ERROR(dynamism <= 2, InvalidProgram, "Invalid shape dynamism %u", dynamism);
    const fb::Table extra = t.table(fb::tensor::extra_tensor_info);
    const int8_t device_type = extra.get<int8_t>(fb::extra::device_type);
    ET_CHECK_OR_RETURN_ERROR(device_type == 0 || device_type == 1, InvalidProgram, "Invalid device type");

    const size_t dim = sizes.size();
    using SizesType = executorch::aten::SizesType;
    using DimOrderType = executorch::aten::DimOrderType;
    using StridesType = executorch::aten::StridesType;
    auto* strides = alloc_list<StridesType>(allocator, dim);
    SizesType* sizes_ptr = const_cast<SizesType*>(sizes.data());
    DimOrderType* order_ptr = const_cast<DimOrderType*>(dim_order.data());
    if (dynamism != static_cast<uint8_t>(TensorShapeDynamism::STATIC)) {
      // Resizable: own copies (the program data may be read-only).
      sizes_ptr = alloc_list<SizesType>(allocator, dim);
      order_ptr = alloc_list<DimOrderType>(allocator, dim);
      if (dim > 0 && sizes_ptr != nullptr && order_ptr != nullptr) {
        std::memcpy(sizes_ptr, sizes.data(), dim * sizeof(SizesType));
        std::memcpy(order_ptr, dim_order.data(), dim);
      }
    }
    auto* impl = allocator->allocateInstance<executorch::aten::TensorImpl>();
    ET_CHECK_OR_RETURN_ERROR(
        impl != nullptr && (dim == 0 || (strides != nullptr && sizes_ptr != nullptr && order_ptr != nullptr)),
        MemoryAllocationFailed,
        "No memory for a tensor");
    dim_order_to_stride_nocheck(sizes_ptr, order_ptr, dim, strides);

    auto data = data_for(t, *nbytes);
    if (!data.ok()) {
      return data.error();
    }
    // Kernels read elements with aligned loads: refuse misaligned data.
    const size_t elem = elementSize(type);
    const size_t align = elem < 8 ? elem : 8;
    ET_CHECK_OR_RETURN_ERROR(
        (reinterpret_cast<uintptr_t>(*data) & (align - 1)) == 0,
        InvalidProgram,
        "Tensor data at %p is not aligned to %zu bytes",
        *data,
        align);
    new (impl) executorch::aten::TensorImpl(
        type,
        static_cast<ssize_t>(dim),
        sizes_ptr,
        *data,
        order_ptr,
        strides,
        static_cast<TensorShapeDynamism>(dynamism),
        static_cast<etensor::DeviceType>(device_type),
        extra.get<int8_t>(fb::extra::device_index));
    return executorch::aten::Tensor(impl);
  }
};

} // namespace deserialization

Error Method::parse_values(const NamedDataMap* named_data_map) {
  const fb::Table plan = plan_of(serialization_plan_);
  const fb::Vec values = plan.vec(fb::plan::values);
  const size_t n = values.size();
  MemoryAllocator* allocator = memory_manager_->method_allocator();
  values_ = alloc_list<EValue>(allocator, n);
  ET_CHECK_OR_RETURN_ERROR(n == 0 || values_ != nullptr, MemoryAllocationFailed, "No memory for %zu values", n);
  const deserialization::TensorParser parser{program_, memory_manager_, external_constants_, n_external_constants_, named_data_map};

  for (size_t i = 0; i < n; ++i) {
    const fb::Table v = values.table(i);
    const auto type = static_cast<fb::KT>(v.get<uint8_t>(fb::evalue::val_type));
    const fb::Table val = v.table(fb::evalue::val);
    EValue* slot = &values_[i];
    switch (type) {
      case fb::KT::Null:
        new (slot) EValue();
        break;
      case fb::KT::Int:
        new (slot) EValue(val.get<int64_t>(fb::kOnlyField));
        break;
      case fb::KT::Bool:
        new (slot) EValue(val.get<uint8_t>(fb::kOnlyField) != 0);
        break;
      case fb::KT::Double:
        new (slot) EValue(val.get<double>(fb::kOnlyField));
        break;
      case fb::KT::String: {
        auto* s = allocator->allocateInstance<executorch::aten::ArrayRef<char>>();
        ET_CHECK_OR_RETURN_ERROR(s != nullptr, MemoryAllocationFailed, "No memory for a string");
        const char* text = val.str(fb::kOnlyField);
        new (s) executorch::aten::ArrayRef<char>(text ? text : "", val.str_len(fb::kOnlyField));
        new (slot) EValue(s);
        break;
      }
      case fb::KT::IntList: {
        // Items are indices of Int values (checked once all values exist, below).
        const fb::Vec items = val.vec(fb::kOnlyField);
        const size_t count = items.size();
        auto** wrapped = alloc_list<EValue*>(allocator, count);
        auto* unwrapped = alloc_list<int64_t>(allocator, count);
        auto* list = allocator->allocateInstance<BoxedEvalueList<int64_t>>();
        ET_CHECK_OR_RETURN_ERROR(
            list != nullptr && (count == 0 || (wrapped && unwrapped)), MemoryAllocationFailed, "No memory for a list");
        for (size_t j = 0; j < count; ++j) {
          const int64_t index = items.at<int64_t>(j);
          ET_CHECK_OR_RETURN_ERROR(value_index_ok(index, n), InvalidProgram, "List item %lld out of range", (long long)index);
          wrapped[j] = &values_[index];
        }
        static EValue* empty_wrapped[1];
        static int64_t empty_unwrapped[1];
        new (list) BoxedEvalueList<int64_t>(
            count ? wrapped : empty_wrapped, count ? unwrapped : empty_unwrapped, static_cast<int>(count));
        new (slot) EValue(list);
        break;
      }
      case fb::KT::DoubleList: {
        auto* list = allocator->allocateInstance<executorch::aten::ArrayRef<double>>();
        ET_CHECK_OR_RETURN_ERROR(list != nullptr, MemoryAllocationFailed, "No memory for a list");
        const Span<const double> items = span_of<double>(val.vec(fb::kOnlyField));
        new (list) executorch::aten::ArrayRef<double>(items.data(), items.size());
        new (slot) EValue(list);
        break;
      }
      case fb::KT::BoolList: {
        const Span<const uint8_t> items = span_of<uint8_t>(val.vec(fb::kOnlyField));
        for (size_t j = 0; j < items.size(); ++j) {
          ET_CHECK_OR_RETURN_ERROR(items[j] <= 1, InvalidProgram, "Invalid bool");
        }
        auto* list = allocator->allocateInstance<executorch::aten::ArrayRef<bool>>();
        ET_CHECK_OR_RETURN_ERROR(list != nullptr, MemoryAllocationFailed, "No memory for a list");
        new (list) executorch::aten::ArrayRef<bool>(reinterpret_cast<const bool*>(items.data()), items.size());
        new (slot) EValue(list);
        break;
      }
      case fb::KT::TensorList:
      case fb::KT::OptionalTensorList: {
        // Items are indices of earlier Tensor (or, for optional lists, None / -1) values.
        const bool optional = type == fb::KT::OptionalTensorList;
        const fb::Vec items = val.vec(fb::kOnlyField);
        const size_t count = items.size();
        auto** wrapped = alloc_list<EValue*>(allocator, count);
        void* unwrapped = count == 0 ? nullptr
            : optional ? static_cast<void*>(alloc_list<std::optional<executorch::aten::Tensor>>(allocator, count))
                       : static_cast<void*>(alloc_list<executorch::aten::Tensor>(allocator, count));
        void* list = optional
            ? static_cast<void*>(allocator->allocateInstance<BoxedEvalueList<std::optional<executorch::aten::Tensor>>>())
            : static_cast<void*>(allocator->allocateInstance<BoxedEvalueList<executorch::aten::Tensor>>());
        ET_CHECK_OR_RETURN_ERROR(
            list != nullptr && (count == 0 || (wrapped && unwrapped)), MemoryAllocationFailed, "No memory for a list");
        for (size_t j = 0; j < count; ++j) {
          const int32_t index = items.at<int32_t>(j);
          if (optional && index == -1) {
            wrapped[j] = nullptr;
            new (&static_cast<std::optional<executorch::aten::Tensor>*>(unwrapped)[j])
                std::optional<executorch::aten::Tensor>();
            continue;
          }
          ET_CHECK_OR_RETURN_ERROR(
              index >= 0 && static_cast<size_t>(index) < i &&
                  (values_[index].isTensor() || (optional && values_[index].isNone())),
              InvalidProgram,
              "Tensor list item %d is not an earlier tensor",
              index);
          wrapped[j] = &values_[index];
          if (optional) {
            new (&static_cast<std::optional<executorch::aten::Tensor>*>(unwrapped)[j])
                std::optional<executorch::aten::Tensor>(values_[index].toOptional<executorch::aten::Tensor>());
          } else {
            new (&static_cast<executorch::aten::Tensor*>(unwrapped)[j]) executorch::aten::Tensor(values_[index].toTensor());
          }
        }
        static EValue* empty_wrapped[1];
        if (optional) {
          static std::optional<executorch::aten::Tensor> empty[1];
          auto* l = new (list) BoxedEvalueList<std::optional<executorch::aten::Tensor>>(
              count ? wrapped : empty_wrapped,
              count ? static_cast<std::optional<executorch::aten::Tensor>*>(unwrapped) : empty,
              static_cast<int>(count));
          new (slot) EValue(l);
        } else {
          alignas(executorch::aten::Tensor) static uint8_t empty[sizeof(executorch::aten::Tensor)];
          auto* l = new (list) BoxedEvalueList<executorch::aten::Tensor>(
              count ? wrapped : empty_wrapped,
              count ? static_cast<executorch::aten::Tensor*>(unwrapped)
                    : reinterpret_cast<executorch::aten::Tensor*>(empty),
              static_cast<int>(count));
          new (slot) EValue(l);
        }
        break;
      }
      case fb::KT::Tensor: {
        auto tensor = parser.parse(val);
        if (!tensor.ok()) {
          ET_LOG(Error, "Tensor value %zu: %s", i, to_string(tensor.error()));
          return tensor.error();
        }
        new (slot) EValue(*tensor);
        break;
      }
      default:
        ET_LOG(Error, "Value %zu has unknown type %u", i, static_cast<unsigned>(type));
        return Error::InvalidProgram;
    }
    n_value_ = i + 1;
  }

  // Int lists may point forward: their items must all be Ints.
  for (size_t i = 0; i < n; ++i) {
    if (!values_[i].isIntList()) {
      continue;
    }
    const fb::Vec items = values.table(i).table(fb::evalue::val).vec(fb::kOnlyField);
    for (uint32_t j = 0; j < items.size(); ++j) {
      ET_CHECK_OR_RETURN_ERROR(
          values_[items.at<int64_t>(j)].isInt(), InvalidProgram, "Int list %zu has a non-int item", i);
    }
  }
  return Error::Ok;
}

Error Method::resolve_operator(
    int32_t op_index,
    OpFunction* kernels,
    size_t kernel_index,
    InstructionArgs args,
    size_t n_args) {
  const fb::Vec ops = plan_of(serialization_plan_).vec(fb::plan::operators);
  ET_CHECK_OR_RETURN_ERROR(value_index_ok(op_index, ops.size()), InvalidProgram, "Operator %d out of range", op_index);
  const fb::Table op = ops.table(op_index);
  const char* name = op.str(fb::op::name);
  const char* overload = op.str(fb::op::overload);
  ET_CHECK_OR_RETURN_ERROR(name != nullptr, InvalidProgram, "Operator %d has no name", op_index);
  char full_name[kMaxOperatorNameLength];
  const size_t name_len = op.str_len(fb::op::name);
  const size_t overload_len = overload ? op.str_len(fb::op::overload) : 0;
  ET_CHECK_OR_RETURN_ERROR(
      name_len + overload_len + 2 <= sizeof(full_name), InvalidProgram, "Operator name too long");
  std::memcpy(full_name, name, name_len);
  size_t len = name_len;
  if (overload_len > 0) {
    full_name[len++] = '.';
    std::memcpy(full_name + len, overload, overload_len);
    len += overload_len;
  }
  full_name[len] = '\0';

  // Tensor metas of the arguments select a kernel registered for those dtypes / dim
  // orders (falling back to a kernel registered without a key).
  TensorMeta metas[kMaxKernelKeyTensors];
  size_t n_metas = 0;
  bool too_many = false;
  auto add_meta = [&](const executorch::aten::Tensor& t) {
    if (n_metas == kMaxKernelKeyTensors) {
      too_many = true;
      return;
    }
    metas[n_metas++] = TensorMeta(
        t.scalar_type(),
        Span<executorch::aten::DimOrderType>(
            const_cast<executorch::aten::DimOrderType*>(t.dim_order().data()), t.dim_order().size()));
  };
  for (size_t i = 0; i < n_args; ++i) {
    if (args[i]->isTensor()) {
      add_meta(args[i]->toTensor());
    } else if (args[i]->isTensorList()) {
      for (const auto& t : args[i]->toTensorList()) {
        add_meta(t);
      }
    }
  }
  auto fn = get_op_function_from_registry(
      full_name, too_many ? Span<const TensorMeta>() : Span<const TensorMeta>(metas, n_metas), kernel_registry_);
  if (!fn.ok()) {
    ET_LOG(Error, "Missing kernel for operator %s", full_name);
    return Error::OperatorMissing;
  }
  kernels[kernel_index] = *fn;
  return Error::Ok;
}

Error Method::init(
    executorch_flatbuffer::ExecutionPlan* s_plan,
    const NamedDataMap* named_data_map,
    const LoadBackendOptionsMap* backend_options) {
  ET_CHECK_OR_RETURN_ERROR(init_state_ == InitializationState::Uninitialized, InvalidState, "Method already initialised");
  init_state_ = InitializationState::InitializationFailed;
  serialization_plan_ = s_plan;
  const fb::Table plan = plan_of(s_plan);
  MemoryAllocator* allocator = memory_manager_->method_allocator();
  const char* method_name = plan.str(fb::plan::name);

  // Named data: the program's own and the caller's, merged when both exist.
  const NamedDataMap* data_map = named_data_map;
  auto pte_map = program_->get_named_data_map();
  if (pte_map.ok()) {
    if (named_data_map != nullptr) {
      auto merged = internal::MergedDataMap::load(*pte_map, named_data_map);
      if (!merged.ok()) {
        return merged.error();
      }
      auto* p = allocator->allocateInstance<internal::MergedDataMap>();
      ET_CHECK_OR_RETURN_ERROR(p != nullptr, MemoryAllocationFailed, "No memory for the data map");
      merged_data_map_ = new (p) internal::MergedDataMap(std::move(*merged));
      data_map = merged_data_map_;
    } else {
      data_map = *pte_map;
    }
  }

  Error err = parse_external_constants(data_map);
  if (err != Error::Ok) {
    return err;
  }
  err = parse_values(data_map);
  if (err != Error::Ok) {
    return err;
  }
  const size_t n_values = n_value_;

  // Inputs and outputs.
  const fb::Vec inputs = plan.vec(fb::plan::inputs);
  const fb::Vec outputs = plan.vec(fb::plan::outputs);
  for (uint32_t i = 0; i < inputs.size(); ++i) {
    ET_CHECK_OR_RETURN_ERROR(value_index_ok(inputs.at<int32_t>(i), n_values), InvalidProgram, "Input %u out of range", i);
  }
  for (uint32_t i = 0; i < outputs.size(); ++i) {
    ET_CHECK_OR_RETURN_ERROR(value_index_ok(outputs.at<int32_t>(i), n_values), InvalidProgram, "Output %u out of range", i);
  }
  input_set_ = alloc_list<bool>(allocator, inputs.size());
  ET_CHECK_OR_RETURN_ERROR(inputs.size() == 0 || input_set_ != nullptr, MemoryAllocationFailed, "No memory");
  for (uint32_t i = 0; i < inputs.size(); ++i) {
    input_set_[i] = false;
  }

  // Delegates.
  const fb::Vec delegates = plan.vec(fb::plan::delegates);
  delegates_ = alloc_list<BackendDelegate>(allocator, delegates.size());
  ET_CHECK_OR_RETURN_ERROR(delegates.size() == 0 || delegates_ != nullptr, MemoryAllocationFailed, "No memory");
  for (uint32_t i = 0; i < delegates.size(); ++i) {
    const fb::Table d = delegates.table(i);
    const char* id = d.str(fb::delegate::id);
    ET_CHECK_OR_RETURN_ERROR(id != nullptr, InvalidProgram, "Delegate %u has no backend id", i);
    BackendInterface* backend = get_backend_class(id);
    ET_CHECK_OR_RETURN_ERROR(backend != nullptr, NotFound, "Backend %s is not registered", id);
    ET_CHECK_OR_RETURN_ERROR(backend->is_available(), NotFound, "Backend %s is not available", id);
    const fb::Table ref = d.table(fb::delegate::processed);
    ET_CHECK_OR_RETURN_ERROR(ref, InvalidProgram, "Delegate %u has no payload", i);
    const uint8_t location = ref.get<uint8_t>(fb::data_ref::location);
    const uint32_t index = ref.get<uint32_t>(fb::data_ref::index);
    if (location == 0) { // INLINE
      const void* data;
      size_t size;
      err = program_->get_backend_delegate_data(index, &data, &size);
      ET_CHECK_OR_RETURN_ERROR(err == Error::Ok, InvalidProgram, "Delegate %u payload out of range", i);
      new (&delegates_[i]) BackendDelegate(backend, FreeableBuffer(data, size, nullptr));
    } else if (location == 1) { // SEGMENT
      auto segment = program_->LoadSegment(DataLoader::SegmentInfo(DataLoader::SegmentInfo::Type::Backend, index, id));
      if (!segment.ok()) {
        return segment.error();
      }
      new (&delegates_[i]) BackendDelegate(backend, std::move(*segment));
    } else {
      ET_LOG(Error, "Delegate %u: unknown payload location %u", i, location);
      return Error::InvalidProgram;
    }
    n_delegate_ = i + 1;

    const fb::Vec specs = d.vec(fb::delegate::compile_specs);
    CompileSpec* compile_specs = alloc_list<CompileSpec>(allocator, specs.size());
    ET_CHECK_OR_RETURN_ERROR(specs.size() == 0 || compile_specs != nullptr, MemoryAllocationFailed, "No memory");
    for (uint32_t s = 0; s < specs.size(); ++s) {
      const fb::Table spec = specs.table(s);
      const fb::Vec value = spec.vec(fb::compile_spec::value);
      const char* key = spec.str(fb::compile_spec::key);
      compile_specs[s].key = key ? key : "";
      compile_specs[s].value.buffer = value.p ? const_cast<uint8_t*>(value.data()) : nullptr;
      compile_specs[s].value.nbytes = value.size();
    }
    BackendInitContext context(
        allocator,
        event_tracer_,
        method_name,
        data_map,
        backend_options != nullptr ? backend_options->get_options(id) : Span<const BackendOption>());
    auto handle = backend->init(
        context, &delegates_[i].processed_, executorch::aten::ArrayRef<CompileSpec>(compile_specs, specs.size()));
    if (!handle.ok()) {
      ET_LOG(Error, "Backend %s failed to initialise delegate %u: %s", id, i, to_string(handle.error()));
      return handle.error();
    }
    delegates_[i].handle_ = *handle;
  }

  // Chains: decode and check every instruction.
  const fb::Vec chains = plan.vec(fb::plan::chains);
  chains_ = alloc_list<Chain>(allocator, chains.size());
  ET_CHECK_OR_RETURN_ERROR(chains.size() == 0 || chains_ != nullptr, MemoryAllocationFailed, "No memory");
  for (uint32_t c = 0; c < chains.size(); ++c) {
    const fb::Vec instrs = chains.table(c).vec(fb::chain::instructions);
    const size_t n = instrs.size();
    Instruction* decoded = alloc_list<Instruction>(allocator, n);
    ET_CHECK_OR_RETURN_ERROR(n == 0 || decoded != nullptr, MemoryAllocationFailed, "No memory");
    chains_[c] = Chain{decoded, n};
    n_chains_ = c + 1;
    for (size_t j = 0; j < n; ++j) {
      const fb::Table ins = instrs.table(j);
      const fb::Table a = ins.table(fb::instr::args);
      Instruction& out = decoded[j];
      out = Instruction{nullptr, nullptr, 0, 0, 0, ins.get<uint8_t>(fb::instr::args_type)};
      const int32_t first = a.get<int32_t>(0);
      const int32_t second = a.get<int32_t>(1);
      bool ok = true;
      switch (static_cast<fb::IA>(out.kind)) {
        case fb::IA::KernelCall:
        case fb::IA::DelegateCall: {
          const bool kernel = static_cast<fb::IA>(out.kind) == fb::IA::KernelCall;
          ok = kernel ? value_index_ok(first, plan.vec(fb::plan::operators).size())
                      : value_index_ok(first, n_delegate_);
          const fb::Vec arg_indices = a.vec(1);
          out.n_args = arg_indices.size();
          out.args = alloc_list<EValue*>(allocator, out.n_args);
          ET_CHECK_OR_RETURN_ERROR(out.n_args == 0 || out.args != nullptr, MemoryAllocationFailed, "No memory");
          for (uint32_t k = 0; k < out.n_args && ok; ++k) {
            const int32_t index = arg_indices.at<int32_t>(k);
            ok = value_index_ok(index, n_values);
            if (ok) {
              out.args[k] = &values_[index];
            }
          }
          out.a = static_cast<uint32_t>(first);
          if (ok && kernel) {
            err = resolve_operator(first, &out.kernel, 0, InstructionArgs(out.args, out.n_args), out.n_args);
            if (err != Error::Ok) {
              return err;
            }
          }
          break;
        }
        case fb::IA::MoveCall:
          ok = value_index_ok(first, n_values) && value_index_ok(second, n_values);
          out.a = first;
          out.b = second;
          break;
        case fb::IA::JumpFalseCall:
          ok = value_index_ok(first, n_values) && second >= 0 && static_cast<size_t>(second) <= n;
          out.a = first;
          out.b = second;
          break;
        case fb::IA::FreeCall:
          ok = value_index_ok(first, n_values);
          out.a = first;
          break;
        default:
          ok = false;
      }
      ET_CHECK_OR_RETURN_ERROR(ok, InvalidProgram, "Instruction %zu of chain %u is invalid", j, c);
    }
  }

  step_state_ = StepState{0, 0};
  init_state_ = InitializationState::Initialized;
  return Error::Ok;
}

// --- inputs and outputs -------------------------------------------------------------

size_t Method::inputs_size() const {
  return plan_of(serialization_plan_).vec(fb::plan::inputs).size();
}

size_t Method::outputs_size() const {
  return plan_of(serialization_plan_).vec(fb::plan::outputs).size();
}

size_t Method::get_input_index(size_t i) const {
  ET_CHECK_MSG(i < inputs_size(), "Input index %zu out of range", i);
  return static_cast<size_t>(plan_of(serialization_plan_).vec(fb::plan::inputs).at<int32_t>(i));
}

size_t Method::get_output_index(size_t i) const {
  ET_CHECK_MSG(i < outputs_size(), "Output index %zu out of range", i);
  return static_cast<size_t>(plan_of(serialization_plan_).vec(fb::plan::outputs).at<int32_t>(i));
}

const EValue& Method::get_value(size_t i) const {
  ET_CHECK_MSG(i < n_value_, "Value index %zu out of range", i);
  return values_[i];
}

EValue& Method::mutable_value(size_t i) {
  ET_CHECK_MSG(i < n_value_, "Value index %zu out of range", i);
  return values_[i];
}

const EValue& Method::get_input(size_t i) const {
  return get_value(get_input_index(i));
}

EValue& Method::mutable_input(size_t i) {
  return mutable_value(get_input_index(i));
}

const EValue& Method::get_output(size_t i) const {
  return get_value(get_output_index(i));
}

EValue& Method::mutable_output(size_t i) {
  return mutable_value(get_output_index(i));
}

Error Method::set_input(const EValue& input_evalue, size_t input_idx) {
  ET_CHECK_OR_RETURN_ERROR(initialized(), InvalidState, "Method not initialised");
  ET_CHECK_OR_RETURN_ERROR(
      step_state_.chain_idx == 0 && step_state_.instr_idx == 0, InvalidState, "Cannot set inputs mid-execution");
  ET_CHECK_OR_RETURN_ERROR(input_idx < inputs_size(), InvalidArgument, "Input index %zu out of range", input_idx);
  const size_t value_index = get_input_index(input_idx);
  EValue& e = values_[value_index];
  ET_CHECK_OR_RETURN_ERROR(
      e.tag == input_evalue.tag,
      InvalidArgument,
      "Input %zu has tag %u, got %u",
      input_idx,
      static_cast<unsigned>(e.tag),
      static_cast<unsigned>(input_evalue.tag));
  if (e.isTensor()) {
    const auto& dst = e.toTensor();
    const auto& src = input_evalue.toTensor();
    ET_CHECK_OR_RETURN_ERROR(
        dst.scalar_type() == src.scalar_type(), InvalidArgument, "Input %zu has the wrong dtype", input_idx);
    ET_CHECK_OR_RETURN_ERROR(dst.dim() == src.dim(), InvalidArgument, "Input %zu has the wrong rank", input_idx);
    for (ssize_t d = 0; d < dst.dim(); ++d) {
      ET_CHECK_OR_RETURN_ERROR(
          dst.dim_order()[d] == src.dim_order()[d], InvalidArgument, "Input %zu has the wrong dim order", input_idx);
    }
    ET_CHECK_OR_RETURN_ERROR(
        resize_tensor(dst, src.sizes()) == Error::Ok, InvalidArgument, "Input %zu has the wrong shape", input_idx);
    ET_CHECK_OR_RETURN_ERROR(
        src.const_data_ptr() != nullptr || src.nbytes() == 0, InvalidArgument, "Input %zu has no data", input_idx);
    const bool planned =
        static_cast<bool>(serialized_tensor(plan_of(serialization_plan_), value_index).table(fb::tensor::allocation_info));
    const Error err = planned ? internal::copy_tensor_data(dst, src) : internal::share_tensor_data(dst, src);
    if (err != Error::Ok) {
      return err;
    }
  } else if (e.isInt() || e.isDouble() || e.isBool()) {
    // Scalars are baked into the program at export time.
    const bool same = e.isInt() ? e.toInt() == input_evalue.toInt()
        : e.isDouble()          ? e.toDouble() == input_evalue.toDouble()
                                : e.toBool() == input_evalue.toBool();
    ET_CHECK_OR_RETURN_ERROR(same, InvalidArgument, "Input %zu must equal the value the program was exported with", input_idx);
  } else if (!e.isNone()) {
    ET_LOG(Error, "Input %zu: unsupported input type %u", input_idx, static_cast<unsigned>(e.tag));
    return Error::NotSupported;
  }
  input_set_[input_idx] = true;
  return Error::Ok;
}

Error Method::set_inputs(const executorch::aten::ArrayRef<EValue>& input_evalues) {
  ET_CHECK_OR_RETURN_ERROR(initialized(), InvalidState, "Method not initialised");
  ET_CHECK_OR_RETURN_ERROR(
      input_evalues.size() == inputs_size(), InvalidArgument, "Expected %zu inputs, got %zu", inputs_size(), input_evalues.size());
  for (size_t i = 0; i < input_evalues.size(); ++i) {
    const Error err = set_input(input_evalues[i], i);
    if (err != Error::Ok) {
      return err;
    }
  }
  return Error::Ok;
}

Error Method::set_output_data_ptr(void* buffer, size_t size, size_t output_idx) {
  ET_CHECK_OR_RETURN_ERROR(initialized(), InvalidState, "Method not initialised");
  ET_CHECK_OR_RETURN_ERROR(output_idx < outputs_size(), InvalidArgument, "Output index %zu out of range", output_idx);
  const size_t value_index = get_output_index(output_idx);
  EValue& e = values_[value_index];
  ET_CHECK_OR_RETURN_ERROR(e.isTensor(), InvalidArgument, "Output %zu is not a tensor", output_idx);
  ET_CHECK_OR_RETURN_ERROR(
      !serialized_tensor(plan_of(serialization_plan_), value_index).table(fb::tensor::allocation_info),
      InvalidState,
      "Output %zu is memory planned",
      output_idx);
  ET_CHECK_OR_RETURN_ERROR(buffer != nullptr, InvalidArgument, "Null output buffer");
  return internal::set_tensor_data(e.toTensor(), buffer, size);
}

Error Method::get_outputs(EValue* output_evalues, size_t length) {
  ET_CHECK_OR_RETURN_ERROR(initialized(), InvalidState, "Method not initialised");
  return copy_values(
      output_evalues, length, outputs_size(), "outputs", [this](size_t i) -> const EValue& { return get_output(i); });
}

Error Method::get_inputs(EValue* input_evalues, size_t length) {
  ET_CHECK_OR_RETURN_ERROR(initialized(), InvalidState, "Method not initialised");
  return copy_values(
      input_evalues, length, inputs_size(), "inputs", [this](size_t i) -> const EValue& { return get_input(i); });
}

Result<executorch::aten::Tensor> Method::get_attribute(std::string_view name) {
  ET_CHECK_OR_RETURN_ERROR(initialized(), InvalidState, "Method not initialised");
  const fb::Table plan = plan_of(serialization_plan_);
  for (size_t i = 0; i < n_value_; ++i) {
    const fb::Table t = serialized_tensor(plan, i);
    const fb::Table extra = t.table(fb::tensor::extra_tensor_info);
    const char* fqn = extra.str(fb::extra::fully_qualified_name);
    if (fqn != nullptr && !is_external(t) && std::string_view(fqn, extra.str_len(fb::extra::fully_qualified_name)) == name) {
      return values_[i].toTensor();
    }
  }
  return Error::NotFound;
}

MethodMeta Method::method_meta() const {
  auto meta = program_->method_meta(plan_of(serialization_plan_).str(fb::plan::name));
  ET_CHECK_MSG(meta.ok(), "The method's own metadata is missing");
  return *meta;
}

EventTracer* Method::get_event_tracer() {
  return event_tracer_;
}

void Method::log_outputs() {}

// --- execution --------------------------------------------------------------------

bool Method::in_progress() const {
  return initialized() && !(step_state_.chain_idx == 0 && step_state_.instr_idx == 0) &&
      step_state_.chain_idx < n_chains_;
}

Error Method::execute_instruction() {
  Chain& chain = chains_[step_state_.chain_idx];
  const Instruction& in = chain.instructions[step_state_.instr_idx];
  size_t next = step_state_.instr_idx + 1;
  Error err = Error::Ok;
  switch (static_cast<fb::IA>(in.kind)) {
    case fb::IA::KernelCall: {
      // A kernel must never write through a null data pointer.
      for (uint32_t k = 0; k < in.n_args; ++k) {
        const EValue* arg = in.args[k];
        if (arg->isTensor() && arg->toTensor().nbytes() > 0 && arg->toTensor().const_data_ptr() == nullptr) {
          ET_LOG(Error, "Instruction %zu: argument %u is a tensor without data", step_state_.instr_idx, k);
          return Error::InvalidState;
        }
      }
      KernelRuntimeContext context(event_tracer_, temp_allocator_);
      in.kernel(context, Span<EValue*>(in.args, in.n_args));
      err = context.failure_state();
      if (err != Error::Ok) {
        ET_LOG(Error, "Kernel of instruction %zu (operator %u) failed: %s", step_state_.instr_idx, in.a, to_string(err));
      }
      break;
    }
    case fb::IA::DelegateCall: {
      BackendDelegate& d = delegates_[in.a];
      BackendExecutionContext context(event_tracer_, temp_allocator_, plan_of(serialization_plan_).str(fb::plan::name));
      err = d.backend_->execute(context, d.handle_, Span<EValue*>(in.args, in.n_args));
      if (err != Error::Ok) {
        ET_LOG(Error, "Delegate %u failed: %s", in.a, to_string(err));
      }
      break;
    }
    case fb::IA::MoveCall: {
      EValue& to = values_[in.b];
      ET_CHECK_OR_RETURN_ERROR(
          to.isNone() || to.tag == values_[in.a].tag, InvalidProgram, "Move between values of different types");
      to = values_[in.a];
      break;
    }
    case fb::IA::JumpFalseCall: {
      const EValue& cond = values_[in.a];
      bool value;
      if (cond.isBool()) {
        value = cond.toBool();
      } else if (
          cond.isTensor() && cond.toTensor().scalar_type() == executorch::aten::ScalarType::Bool &&
          cond.toTensor().numel() > 0 && cond.toTensor().const_data_ptr() != nullptr) {
        const auto& t = cond.toTensor();
        value = true;
        for (ssize_t k = 0; k < t.numel(); ++k) {
          value = value && t.const_data_ptr<bool>()[k];
        }
      } else {
        ET_LOG(Error, "Jump condition %u is not a bool", in.a);
        return Error::InvalidProgram;
      }
      if (!value) {
        next = in.b;
      }
      break;
    }
    case fb::IA::FreeCall: {
      ET_CHECK_OR_RETURN_ERROR(values_[in.a].isTensor(), InvalidProgram, "Free of a non-tensor value %u", in.a);
      internal::reset_data_ptr(values_[in.a].toTensor());
      break;
    }
    default:
      return Error::InvalidProgram;
  }
  if (temp_allocator_ != nullptr) {
    temp_allocator_->reset();
  }
  if (err != Error::Ok) {
    return err;
  }
  step_state_.instr_idx = next;
  // Move to the next non-empty chain when this one is done.
  while (step_state_.chain_idx < n_chains_ &&
         step_state_.instr_idx >= chains_[step_state_.chain_idx].n_instructions) {
    ++step_state_.chain_idx;
    step_state_.instr_idx = 0;
  }
  return Error::Ok;
}

Error Method::execute() {
  ET_CHECK_OR_RETURN_ERROR(initialized(), InvalidState, "Method not initialised");
  ET_CHECK_OR_RETURN_ERROR(
      step_state_.chain_idx == 0 && step_state_.instr_idx == 0,
      InvalidState,
      "Execution was started with step(): reset_execution() first");
  const size_t n_inputs = inputs_size();
  for (size_t i = 0; i < n_inputs; ++i) {
    ET_CHECK_OR_RETURN_ERROR(input_set_[i], InvalidArgument, "Input %zu has not been set", i);
  }
  // Skip leading empty chains.
  while (step_state_.chain_idx < n_chains_ && chains_[step_state_.chain_idx].n_instructions == 0) {
    ++step_state_.chain_idx;
  }
  while (step_state_.chain_idx < n_chains_) {
    const Error err = execute_instruction();
    if (err != Error::Ok) {
      step_state_ = StepState{0, 0};
      return err;
    }
  }
  step_state_ = StepState{0, 0};
  return Error::Ok;
}

Error Method::step() {
  ET_CHECK_OR_RETURN_ERROR(initialized(), InvalidState, "Method not initialised");
  if (step_state_.chain_idx == 0 && step_state_.instr_idx == 0) {
    while (step_state_.chain_idx < n_chains_ && chains_[step_state_.chain_idx].n_instructions == 0) {
      ++step_state_.chain_idx;
    }
  }
  if (step_state_.chain_idx >= n_chains_) {
    return Error::EndOfMethod;
  }
  const Error err = execute_instruction();
  if (err != Error::Ok) {
    step_state_ = StepState{0, 0};
  }
  return err;
}

Error Method::experimental_step() {
  return step();
}

Error Method::reset_execution() {
  ET_CHECK_OR_RETURN_ERROR(initialized(), InvalidState, "Method not initialised");
  ET_CHECK_OR_RETURN_ERROR(
      !in_progress(), InvalidState, "Cannot reset before the method reached its end");
  step_state_ = StepState{0, 0};
  return Error::Ok;
}

Error Method::experimental_reset_execution() {
  return reset_execution();
}

Method::~Method() {
  for (size_t i = 0; i < n_delegate_; ++i) {
    delegates_[i].~BackendDelegate();
  }
  for (size_t i = 0; i < n_value_; ++i) {
    values_[i].~EValue();
  }
  for (size_t i = 0; i < n_external_constants_; ++i) {
    external_constants_[i].buffer.~FreeableBuffer();
  }
  if (merged_data_map_ != nullptr) {
    merged_data_map_->~MergedDataMap();
  }
  if (memory_manager_ != nullptr && temp_allocator_ != nullptr && temp_allocator_ != memory_manager_->temp_allocator()) {
    temp_allocator_->~MemoryAllocator(); // the PlatformMemoryAllocator made by load()
  }
}

} // namespace ET_RUNTIME_NAMESPACE
} // namespace executorch
