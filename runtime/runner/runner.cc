#include "runtime/runner/runner.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <new>
#include <utility>

#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>
#include <executorch/runtime/platform/runtime.h>

#include "runtime/executorch_names.h"

namespace etarm {
namespace runner {

using executorch::runtime::Tag;

namespace {

// Share of the arena left after planned buffers and inputs that becomes the temporary
// allocator (kernels' scratch, reset after every instruction); the method gets the rest.
constexpr size_t kTempShareDivisor = 8;

void print_arena_hint(size_t arena_bytes) {
  std::printf("runner: arena too small (%zu bytes): rebuild with a larger -DETARM_RUNNER_ARENA_BYTES\n", arena_bytes);
}

// One value of an output tensor's element `k`, printed in its dtype.
void print_value(const Tensor& t, size_t k) {
  switch (t.scalar_type()) {
    case ScalarType::Float:
      std::printf(" %.9g", static_cast<double>(t.const_data_ptr<float>()[k]));
      break;
    case ScalarType::Double:
      std::printf(" %.17g", t.const_data_ptr<double>()[k]);
      break;
    case ScalarType::Char:
      std::printf(" %d", static_cast<int>(t.const_data_ptr<int8_t>()[k]));
      break;
    case ScalarType::Byte:
      std::printf(" %u", static_cast<unsigned>(t.const_data_ptr<uint8_t>()[k]));
      break;
    case ScalarType::Short:
      std::printf(" %d", static_cast<int>(t.const_data_ptr<int16_t>()[k]));
      break;
    case ScalarType::Int:
      std::printf(" %" PRId32, t.const_data_ptr<int32_t>()[k]);
      break;
    case ScalarType::Long:
      std::printf(" %" PRId64, t.const_data_ptr<int64_t>()[k]);
      break;
    case ScalarType::Bool:
      std::printf(" %d", t.const_data_ptr<bool>()[k] ? 1 : 0);
      break;
    default:
      std::printf(" ?");
      break;
  }
}

// Writes ones of `type` into `data` (numel elements).
void fill_ones(ScalarType type, void* data, size_t numel) {
  for (size_t k = 0; k < numel; ++k) {
    switch (type) {
      case ScalarType::Float:
        static_cast<float*>(data)[k] = 1.0f;
        break;
      case ScalarType::Double:
        static_cast<double*>(data)[k] = 1.0;
        break;
      case ScalarType::Char:
        static_cast<int8_t*>(data)[k] = 1;
        break;
      case ScalarType::Byte:
        static_cast<uint8_t*>(data)[k] = 1;
        break;
      case ScalarType::Short:
        static_cast<int16_t*>(data)[k] = 1;
        break;
      case ScalarType::Int:
        static_cast<int32_t*>(data)[k] = 1;
        break;
      case ScalarType::Long:
        static_cast<int64_t*>(data)[k] = 1;
        break;
      case ScalarType::Bool:
        static_cast<bool*>(data)[k] = true;
        break;
      default:
        std::memset(data, 0, numel * executorch::runtime::elementSize(type));
        return;
    }
  }
}

}  // namespace

int report_error(const char* what, Error error) {
  std::printf("FAILED: %s: %s (0x%x)\n", what, executorch::runtime::to_string(error), static_cast<unsigned>(error));
  std::fflush(stdout);
  return 1;
}

Runner::Runner(uint8_t* arena, size_t arena_bytes) : arena_(arena), arena_bytes_(arena_bytes) {
  executorch::runtime::runtime_init();
}

Runner::~Runner() {
  if (method_ != nullptr) method_->~Method();
  if (program_ != nullptr) program_->~Program();
}

uint8_t* Runner::take(size_t bytes, size_t alignment) {
  const uintptr_t base = reinterpret_cast<uintptr_t>(arena_);
  const uintptr_t start = (base + arena_used_ + alignment - 1) & ~static_cast<uintptr_t>(alignment - 1);
  const size_t offset = static_cast<size_t>(start - base);
  if (offset > arena_bytes_ || bytes > arena_bytes_ - offset) return nullptr;
  arena_used_ = offset + bytes;
  return arena_ + offset;
}

void Runner::set_clock(uint64_t (*now)(), uint64_t ticks_per_us, const char* tick_name) {
  now_ = now;
  ticks_per_us_ = ticks_per_us;
  tick_name_ = tick_name;
}

Method& Runner::method() {
  return *method_;
}

Error Runner::load(DataLoader* loader, const char* method_name) {
  if (program_ != nullptr) return Error::InvalidState;  // one program per Runner
  auto program = Program::load(loader, Program::Verification::InternalConsistency);
  if (!program.ok()) return program.error();
  program_ = new (program_storage_) Program(std::move(program.get()));

  auto meta = program_->method_meta(method_name);
  if (!meta.ok()) return meta.error();

  // Memory-planned buffers first: their sizes are fixed by the program.
  const size_t num_planned = meta->num_memory_planned_buffers();
  if (num_planned > kMaxPlannedBuffers) {
    std::printf("runner: the method has %zu planned buffers, at most %zu are supported\n", num_planned,
                kMaxPlannedBuffers);
    return Error::NotSupported;
  }
  for (size_t i = 0; i < num_planned; ++i) {
    auto size = meta->memory_planned_buffer_size(i);
    if (!size.ok()) return size.error();
    const size_t bytes = static_cast<size_t>(size.get());
    uint8_t* buffer = take(bytes, 16);
    if (buffer == nullptr) {
      std::printf("runner: planned buffer %zu needs %zu bytes, %zu of the arena are left\n", i, bytes,
                  arena_bytes_ - arena_used_);
      print_arena_hint(arena_bytes_);
      return Error::MemoryAllocationFailed;
    }
    planned_spans_[i] = Span<uint8_t>(buffer, bytes);
    planned_bytes_ += bytes;
  }
  auto* planned = new (planned_storage_) HierarchicalAllocator({planned_spans_, num_planned});

  // Input tensors (shape, dim order, strides, data) next, so the method gets what remains.
  if (meta->num_inputs() > kMaxInputs) {
    std::printf("runner: the method has %zu inputs, at most %zu are supported\n", meta->num_inputs(), kMaxInputs);
    return Error::NotSupported;
  }
  const size_t before_inputs = arena_used_;
  for (size_t i = 0; i < meta->num_inputs(); ++i) {
    auto tag = meta->input_tag(i);
    if (!tag.ok()) return tag.error();
    if (tag.get() != Tag::Tensor) continue;
    auto info = meta->input_tensor_meta(i);
    if (!info.ok()) return info.error();
    const size_t rank = info->sizes().size();
    auto* sizes = reinterpret_cast<TensorImpl::SizesType*>(take(rank * sizeof(TensorImpl::SizesType), 8));
    auto* dim_order = reinterpret_cast<TensorImpl::DimOrderType*>(take(rank * sizeof(TensorImpl::DimOrderType), 8));
    auto* strides = reinterpret_cast<TensorImpl::StridesType*>(take(rank * sizeof(TensorImpl::StridesType), 8));
    uint8_t* data = take(info->nbytes(), 16);
    auto* impl = reinterpret_cast<TensorImpl*>(take(sizeof(TensorImpl), alignof(TensorImpl)));
    if (sizes == nullptr || dim_order == nullptr || strides == nullptr || data == nullptr || impl == nullptr) {
      std::printf("runner: input %zu (%zu bytes) does not fit in the arena\n", i, info->nbytes());
      print_arena_hint(arena_bytes_);
      return Error::MemoryAllocationFailed;
    }
    // Strides follow the dim order (contiguous in that order).
    size_t stride = 1;
    for (size_t d = 0; d < rank; ++d) {
      sizes[d] = info->sizes()[d];
      dim_order[d] = info->dim_order()[d];
    }
    for (size_t k = rank; k-- > 0;) {
      const size_t dim = dim_order[k];
      strides[dim] = static_cast<TensorImpl::StridesType>(stride);
      stride *= static_cast<size_t>(sizes[dim]);
    }
    input_tensors_[i] = new (impl) TensorImpl(info->scalar_type(), static_cast<ssize_t>(rank), sizes, data, dim_order, strides);
  }
  num_inputs_ = meta->num_inputs();
  input_bytes_ = arena_used_ - before_inputs;

  // The rest: a share for the temporary allocator, everything else for the method.
  const size_t rest = arena_bytes_ - arena_used_;
  temp_bytes_ = rest / kTempShareDivisor;
  uint8_t* temp_base = take(temp_bytes_, 16);
  uint8_t* method_base = take(0, 16);
  const size_t method_bytes = arena_bytes_ - arena_used_;
  auto* temp = new (temp_allocator_storage_) MemoryAllocator(static_cast<uint32_t>(temp_bytes_), temp_base);
  method_allocator_ = new (method_allocator_storage_) MemoryAllocator(static_cast<uint32_t>(method_bytes), method_base);
  auto* memory = new (memory_manager_storage_) MemoryManager(method_allocator_, planned, temp);

  auto method = program_->load_method(method_name, memory);
  if (!method.ok()) {
    if (method.error() == Error::MemoryAllocationFailed) {
      std::printf("runner: the method's own allocations do not fit in the %zu bytes left\n", method_bytes);
      print_arena_hint(arena_bytes_);
    }
    return method.error();
  }
  method_ = new (method_storage_) Method(std::move(method.get()));
  return Error::Ok;
}

Error Runner::set_inputs(const void* data, size_t size) {
  const uint8_t* bytes = static_cast<const uint8_t*>(data);
  size_t offset = 0;
  for (size_t i = 0; i < num_inputs_; ++i) {
    TensorImpl* impl = input_tensors_[i];
    if (impl == nullptr) continue;  // not a tensor: the program's value stays
    const size_t nbytes = impl->nbytes();
    if (bytes == nullptr) {
      fill_ones(impl->scalar_type(), impl->mutable_data(), static_cast<size_t>(impl->numel()));
    } else {
      if (nbytes > size - offset) {
        std::printf("runner: the inputs hold %zu bytes, input %zu needs %zu more from offset %zu\n", size, i, nbytes,
                    offset);
        return Error::InvalidArgument;
      }
      std::memcpy(impl->mutable_data(), bytes + offset, nbytes);
      offset += nbytes;
    }
    const Error err = method_->set_input(EValue(Tensor(impl)), i);
    if (err != Error::Ok) return err;
  }
  if (bytes != nullptr && offset != size) {
    std::printf("runner: the inputs hold %zu bytes, the method's inputs take %zu\n", size, offset);
    return Error::InvalidArgument;
  }
  return Error::Ok;
}

Error Runner::execute() {
  const uint64_t start = now_ != nullptr ? now_() : 0;
  const Error err = method_->execute();
  execute_ticks_ = now_ != nullptr ? now_() - start : 0;
  return err;
}

void Runner::print_outputs() const {
  const size_t n = method_->outputs_size();
  std::printf("outputs: %zu\n", n);
  for (size_t i = 0; i < n; ++i) {
    const EValue& value = method_->get_output(i);
    if (!value.isTensor()) {
      if (value.isInt()) {
        std::printf("output %zu: int %" PRId64 "\n", i, value.toInt());
      } else if (value.isDouble()) {
        std::printf("output %zu: double %.17g\n", i, value.toDouble());
      } else if (value.isBool()) {
        std::printf("output %zu: bool %d\n", i, value.toBool() ? 1 : 0);
      } else {
        std::printf("output %zu: (tag %d)\n", i, static_cast<int>(value.tag));
      }
      continue;
    }
    const Tensor& t = value.toTensor();
    std::printf("output %zu: %s [", i, executorch::runtime::toString(t.scalar_type()));
    for (ssize_t d = 0; d < t.dim(); ++d) std::printf(d ? ", %d" : "%d", static_cast<int>(t.size(d)));
    std::printf("]\n");
    const size_t numel = static_cast<size_t>(t.numel());
    for (size_t k = 0; k < numel; ++k) {
      if (k % 8 == 0) std::printf("out%zu:", i);
      print_value(t, k);
      if (k % 8 == 7 || k + 1 == numel) std::printf("\n");
    }
  }
}

void Runner::print_report() const {
  if (now_ == nullptr) {
    std::printf("time: no clock\n");
  } else if (ticks_per_us_ != 0) {
    const uint64_t us = execute_ticks_ / ticks_per_us_;
    std::printf("time: execute %" PRIu64 " %s (%" PRIu64 ".%03" PRIu64 " ms)\n", execute_ticks_, tick_name_, us / 1000,
                us % 1000);
  } else {
    std::printf("time: execute %" PRIu64 " %s\n", execute_ticks_, tick_name_);
  }
  const MemoryUse use = memory_use();
  std::printf("memory: %zu bytes used of the %zu-byte arena (planned %zu, inputs %zu, method %zu; temp reserve %zu)\n",
              use.used_bytes(), use.arena_bytes, use.planned_bytes, use.input_bytes, use.method_bytes, use.temp_bytes);
}

MemoryUse Runner::memory_use() const {
  const size_t method_used = method_allocator_ != nullptr ? method_allocator_->used_size() : 0;
  return {arena_bytes_, planned_bytes_, input_bytes_, method_used, temp_bytes_};
}

}  // namespace runner
}  // namespace etarm
