#include "runtime/ethosu/ethosu_backend.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <new>
#include <utility>

#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>
#include <executorch/runtime/platform/log.h>

#include "runtime/executorch_names.h"

namespace etarm {
namespace ethosu {
namespace {

EthosUDriver* g_driver = nullptr;
ArenaProvider* g_arena_provider = nullptr;

// What init() builds; allocated from the runtime allocator, so it lives as long as the
// method and is never freed (destroy() only gives arena memory back to a provider).
struct Handle {
  Payload payload;
  TensorEntry* entries;  // num_inputs inputs, then num_outputs outputs
  uint8_t* scratch;
  uint8_t* fast_scratch;
  uint8_t* inputs;   // direct drive: region 3 (nullptr otherwise)
  uint8_t* outputs;  // direct drive: region 4
  ArenaProvider* provider;  // who handed out the regions marked below
  bool scratch_from_provider;
  bool fast_scratch_from_provider;
  bool inputs_from_provider;
  bool outputs_from_provider;
};

const char* region_name(uint32_t region) {
  switch (region) {
    case kRegionScratch:
      return "scratch arena";
    case kRegionFastScratch:
      return "fast scratch";
    case kRegionInputs:
      return "input region";
    default:
      return "output region";
  }
}

const char* direction(bool output) {
  return output ? "output" : "input";
}

// "[1, 8, 16, 16]" into buf.
template <typename T>
const char* format_shape(char* buf, size_t size, const T* dims, size_t rank) {
  size_t pos = 0;
  int n = std::snprintf(buf, size, "[");
  pos = n > 0 ? static_cast<size_t>(n) : 0;
  for (size_t d = 0; d < rank && pos < size; ++d) {
    n = std::snprintf(buf + pos, size - pos, d == 0 ? "%lld" : ", %lld", static_cast<long long>(dims[d]));
    pos += n > 0 ? static_cast<size_t>(n) : 0;
  }
  if (pos < size) {
    std::snprintf(buf + pos, size - pos, "]");
  }
  return buf;
}

// Memory for a region: from the provider if one is installed and takes it, else from the
// runtime allocator. Zeroed.
Error acquire_region(uint32_t region, size_t size, MemoryAllocator* allocator, uint8_t** memory, bool* from_provider) {
  *memory = nullptr;
  *from_provider = false;
  if (size == 0) {
    return Error::Ok;
  }
  void* p = nullptr;
  if (g_arena_provider != nullptr) {
    const Error err = g_arena_provider->acquire(region, size, kNpuAlignment, &p);
    if (err != Error::Ok) {
      ET_LOG(Error, "EthosUBackend: the platform's arena provider has no %zu bytes for region %" PRIu32 " (error 0x%x)",
             size, region, static_cast<unsigned>(err));
      return err;
    }
    if (p != nullptr && reinterpret_cast<uintptr_t>(p) % kNpuAlignment != 0) {
      ET_LOG(Error, "EthosUBackend: the arena provider's region %" PRIu32 " is not %zu-byte aligned", region,
             kNpuAlignment);
      g_arena_provider->release(region, p);
      return Error::MemoryAllocationFailed;
    }
    *from_provider = p != nullptr;
  }
  if (p == nullptr) {
    p = allocator->allocate(size, kNpuAlignment);
    if (p == nullptr) {
      ET_LOG(Error, "EthosUBackend: cannot allocate the %zu-byte %s (region %" PRIu32 ") from the runtime allocator",
             size, region_name(region), region);
      return Error::MemoryAllocationFailed;
    }
  }
  std::memset(p, 0, size);
  *memory = static_cast<uint8_t*>(p);
  return Error::Ok;
}

void release_regions(const Handle& h) {
  if (h.provider == nullptr) {
    return;
  }
  if (h.scratch_from_provider) {
    h.provider->release(kRegionScratch, h.scratch);
  }
  if (h.fast_scratch_from_provider) {
    h.provider->release(kRegionFastScratch, h.fast_scratch);
  }
  if (h.inputs_from_provider) {
    h.provider->release(kRegionInputs, h.inputs);
  }
  if (h.outputs_from_provider) {
    h.provider->release(kRegionOutputs, h.outputs);
  }
}

bool is_copyable_integer(ScalarType t) {
  return t == ScalarType::Byte || t == ScalarType::Char || t == ScalarType::Bool || t == ScalarType::Short ||
         t == ScalarType::Int;
}

// Checks a delegate argument against its payload entry. Sets *widened when the argument
// is int64 and the NPU tensor int32 (narrowed on the way in, widened on the way out).
Error check_tensor(const TensorEntry& e, const EValue* value, bool output, uint32_t index, bool* widened) {
  const char* what = direction(output);
  if (value == nullptr || !value->isTensor()) {
    ET_LOG(Error, "EthosUBackend: %s %" PRIu32 " of the delegate call is not a tensor", what, index);
    return Error::InvalidArgument;
  }
  const Tensor& t = value->toTensor();
  const ScalarType type = t.scalar_type();
  const bool has_dtype = e.dtype != ScalarType::Undefined;
  *widened = type == ScalarType::Long && (has_dtype ? e.dtype == ScalarType::Int : e.elem_size == 4);
  const bool same = has_dtype ? type == e.dtype
                              : is_copyable_integer(type) && executorch::runtime::elementSize(type) == e.elem_size;
  if (!same && !*widened) {
    if (has_dtype) {
      ET_LOG(Error, "EthosUBackend: %s %" PRIu32 " is a %s tensor; the payload expects %s", what, index,
             executorch::runtime::toString(type), executorch::runtime::toString(e.dtype));
    } else {
      ET_LOG(Error, "EthosUBackend: %s %" PRIu32 " is a %s tensor; the payload expects an integer type of %" PRIu32
             " byte(s)", what, index, executorch::runtime::toString(type), e.elem_size);
    }
    return Error::InvalidArgument;
  }
  // Shape: the full shape from etarm_meta, else the tensor's shape folded to rank 4; an
  // entry in Vela's view (ExecuTorch 1.5's) is checked by its byte count alone, below.
  const auto sizes = t.sizes();
  bool shape_ok;
  if (e.shape_is_vela_view) {
    shape_ok = true;
  } else if (has_dtype) {
    shape_ok = sizes.size() == e.rank;
    for (size_t d = 0; shape_ok && d < e.rank; ++d) {
      shape_ok = sizes[d] == e.shape[d];
    }
  } else {
    int64_t folded[4] = {1, 1, 1, 1};
    const size_t rank = sizes.size();
    for (size_t d = 0; d < rank; ++d) {
      const size_t position = d + 4 < rank ? 0 : d + 4 - rank;
      folded[position] *= sizes[d];
      if (folded[position] > INT32_MAX) {
        folded[position] = -1;  // cannot match a validated entry
        break;
      }
    }
    shape_ok = true;
    for (int d = 0; d < 4; ++d) {
      shape_ok = shape_ok && folded[d] == e.shape4[d];
    }
  }
  if (!shape_ok) {
    char got[96];
    char want[96];
    ET_LOG(Error, "EthosUBackend: %s %" PRIu32 " has shape %s; the payload expects %s", what, index,
           format_shape(got, sizeof(got), sizes.data(), sizes.size()),
           format_shape(want, sizeof(want), e.shape, e.rank));
    return Error::InvalidArgument;
  }
  // A tensor made without a dim order (nullptr) is contiguous.
  const auto dim_order = t.dim_order();
  for (size_t d = 0; dim_order.data() != nullptr && d < dim_order.size(); ++d) {
    if (dim_order[d] != d) {
      ET_LOG(Error, "EthosUBackend: %s %" PRIu32 " is not contiguous in its own dimension order (e.g. channels-last)",
             what, index);
      return Error::NotSupported;
    }
  }
  const size_t nbytes = t.nbytes();
  const size_t expected = *widened ? e.nbytes * 2 : e.nbytes;
  if (nbytes != expected) {
    ET_LOG(Error, "EthosUBackend: %s %" PRIu32 " holds %zu bytes; the payload expects %zu", what, index, nbytes,
           expected);
    return Error::InvalidArgument;
  }
  if (nbytes != 0 && (output ? t.mutable_data_ptr() : t.const_data_ptr()) == nullptr) {
    ET_LOG(Error, "EthosUBackend: %s %" PRIu32 " has no data", what, index);
    return Error::InvalidArgument;
  }
  return Error::Ok;
}

uint8_t* region_base(Handle& h, uint32_t region) {
  switch (region) {
    case kRegionFastScratch:
      return h.fast_scratch;
    case kRegionInputs:
      return h.inputs;
    case kRegionOutputs:
      return h.outputs;
    default:
      return h.scratch;
  }
}

Error copy_in(Handle& h, const TensorEntry& e, const Tensor& t, bool widened, uint32_t index) {
  uint8_t* dst = region_base(h, e.region) + e.offset;
  const uint8_t* src = static_cast<const uint8_t*>(t.const_data_ptr());
  if (!widened) {
    std::memcpy(dst, src, e.nbytes);
    return Error::Ok;
  }
  const size_t count = e.nbytes / 4;
  for (size_t k = 0; k < count; ++k) {
    int64_t v;
    std::memcpy(&v, src + 8 * k, sizeof(v));
    if (v < INT32_MIN || v > INT32_MAX) {
      ET_LOG(Error, "EthosUBackend: input %" PRIu32 " element %zu is %" PRId64
             ", outside the int32 range the NPU computes int64 values in", index, k, v);
      return Error::InvalidArgument;
    }
    const int32_t narrow = static_cast<int32_t>(v);
    std::memcpy(dst + 4 * k, &narrow, sizeof(narrow));
  }
  return Error::Ok;
}

void copy_out(Handle& h, const TensorEntry& e, const Tensor& t, bool widened) {
  const uint8_t* src = region_base(h, e.region) + e.offset;
  uint8_t* dst = static_cast<uint8_t*>(t.mutable_data_ptr());
  if (!widened) {
    std::memcpy(dst, src, e.nbytes);
    return;
  }
  const size_t count = e.nbytes / 4;
  for (size_t k = 0; k < count; ++k) {
    int32_t v;
    std::memcpy(&v, src + 4 * k, sizeof(v));
    const int64_t wide = v;
    std::memcpy(dst + 8 * k, &wide, sizeof(wide));
  }
}

void fill_regions(const Handle& h, BaseAddress (&regions)[kNumRegions]) {
  // Region 0 is read-only for the NPU; the driver interface carries one pointer type.
  regions[kRegionWeights] = BaseAddress{const_cast<uint8_t*>(h.payload.weight_data), h.payload.weight_size};
  regions[kRegionScratch] = BaseAddress{h.scratch, h.scratch != nullptr ? h.payload.scratch_size : 0};
  regions[kRegionFastScratch] = BaseAddress{h.fast_scratch, h.fast_scratch != nullptr ? h.payload.fast_scratch_size : 0};
  regions[kRegionInputs] = BaseAddress{h.inputs, h.inputs != nullptr ? h.payload.input_region_size : 0};
  regions[kRegionOutputs] = BaseAddress{h.outputs, h.outputs != nullptr ? h.payload.output_region_size : 0};
}

}  // namespace

EthosUDriver* set_driver(EthosUDriver* driver) {
  return std::exchange(g_driver, driver);
}

EthosUDriver* driver() {
  return g_driver;
}

ArenaProvider* set_arena_provider(ArenaProvider* provider) {
  return std::exchange(g_arena_provider, provider);
}

ArenaProvider* arena_provider() {
  return g_arena_provider;
}

Error StaticArenaProvider::acquire(uint32_t region, size_t size, size_t alignment, void** memory) {
  *memory = nullptr;
  uint8_t* buffer = region == kRegionScratch ? scratch_ : region == kRegionFastScratch ? fast_ : nullptr;
  const size_t capacity = region == kRegionScratch ? scratch_size_ : region == kRegionFastScratch ? fast_size_ : 0;
  if (buffer == nullptr) {
    return Error::Ok;  // the runtime allocator provides it
  }
  if (size > capacity || alignment == 0 || reinterpret_cast<uintptr_t>(buffer) % alignment != 0) {
    return Error::MemoryAllocationFailed;
  }
  *memory = buffer;
  return Error::Ok;
}

bool EthosUBackend::is_available() const {
  // Programs load without a driver; execute() reports the missing driver.
  return true;
}

Result<DelegateHandle*> EthosUBackend::init(BackendInitContext& context, FreeableBuffer* processed,
                                            ArrayRef<CompileSpec> compile_specs) const {
  (void)compile_specs;
  MemoryAllocator* allocator = context.get_runtime_allocator();
  if (processed == nullptr || allocator == nullptr) {
    ET_LOG(Error, "EthosUBackend: init without a payload or a runtime allocator");
    return Error::InvalidArgument;
  }
  Result<const void*> data = processed->data_safe();
  if (!data.ok()) {
    return data.error();
  }
  const uint8_t* bytes = static_cast<const uint8_t*>(data.get());
  const size_t size = processed->size();
  char why[160];
  Payload payload;
  Error err = parse_payload(bytes, size, &payload, why, sizeof(why));
  if (err != Error::Ok) {
    ET_LOG(Error, "EthosUBackend: invalid payload (%zu bytes): %s", size, why);
    return err;
  }
  if (reinterpret_cast<uintptr_t>(bytes) % kNpuAlignment != 0) {
    // The command stream and weights are read by the NPU from 16-byte aligned addresses:
    // a payload the data loader did not align is copied once.
    void* copy = allocator->allocate(size, kNpuAlignment);
    if (copy == nullptr) {
      ET_LOG(Error, "EthosUBackend: the payload is not %zu-byte aligned and %zu bytes to align it are not available",
             kNpuAlignment, size);
      return Error::MemoryAllocationFailed;
    }
    std::memcpy(copy, bytes, size);
    err = parse_payload(copy, size, &payload, why, sizeof(why));
    if (err != Error::Ok) {
      return err;
    }
    processed->Free();
  }
  void* memory = allocator->allocate(sizeof(Handle), alignof(Handle));
  const size_t num_entries = static_cast<size_t>(payload.num_inputs) + payload.num_outputs;
  void* entries = allocator->allocate(num_entries * sizeof(TensorEntry), alignof(TensorEntry));
  if (memory == nullptr || entries == nullptr) {
    ET_LOG(Error, "EthosUBackend: out of runtime allocator memory for the delegate handle");
    return Error::MemoryAllocationFailed;
  }
  Handle* h = new (memory) Handle{};
  h->payload = payload;
  h->entries = static_cast<TensorEntry*>(entries);
  for (uint32_t i = 0; i < payload.num_inputs; ++i) {
    h->entries[i] = tensor_entry(payload, false, i);
  }
  for (uint32_t i = 0; i < payload.num_outputs; ++i) {
    h->entries[payload.num_inputs + i] = tensor_entry(payload, true, i);
  }
  h->provider = g_arena_provider;
  err = acquire_region(kRegionScratch, payload.scratch_size, allocator, &h->scratch, &h->scratch_from_provider);
  if (err == Error::Ok) {
    err = acquire_region(kRegionFastScratch, payload.fast_scratch_size, allocator, &h->fast_scratch,
                         &h->fast_scratch_from_provider);
  }
  if (err == Error::Ok) {
    err = acquire_region(kRegionInputs, payload.input_region_size, allocator, &h->inputs, &h->inputs_from_provider);
  }
  if (err == Error::Ok) {
    err = acquire_region(kRegionOutputs, payload.output_region_size, allocator, &h->outputs,
                         &h->outputs_from_provider);
  }
  if (err != Error::Ok) {
    release_regions(*h);
    return err;
  }
  return static_cast<DelegateHandle*>(h);
}

Error EthosUBackend::execute(BackendExecutionContext& context, DelegateHandle* handle, Span<EValue*> args) const {
  (void)context;
  if (handle == nullptr) {
    return Error::InvalidArgument;
  }
  Handle& h = *static_cast<Handle*>(handle);
  EthosUDriver* const npu = g_driver;
  if (npu == nullptr) {
    ET_LOG(Error,
           "EthosUBackend: no Ethos-U driver installed: the platform must call etarm::ethosu::set_driver() "
           "(runtime/ethosu/driver.h) before executing a method with Ethos-U partitions");
    return Error::NotSupported;
  }
  const uint32_t num_inputs = h.payload.num_inputs;
  const uint32_t num_outputs = h.payload.num_outputs;
  if (args.size() != static_cast<size_t>(num_inputs) + num_outputs) {
    ET_LOG(Error, "EthosUBackend: the delegate call passes %zu values; the payload has %" PRIu32 " inputs and %" PRIu32
           " outputs", args.size(), num_inputs, num_outputs);
    return Error::InvalidArgument;
  }
  bool widened = false;
  // Check every output before anything runs; then bind the inputs.
  for (uint32_t i = 0; i < num_outputs; ++i) {
    const Error err = check_tensor(h.entries[num_inputs + i], args[num_inputs + i], true, i, &widened);
    if (err != Error::Ok) {
      return err;
    }
  }
  for (uint32_t i = 0; i < num_inputs; ++i) {
    Error err = check_tensor(h.entries[i], args[i], false, i, &widened);
    if (err == Error::Ok) {
      err = copy_in(h, h.entries[i], args[i]->toTensor(), widened, i);
    }
    if (err != Error::Ok) {
      return err;
    }
  }
  BaseAddress regions[kNumRegions];
  fill_regions(h, regions);
  const CommandStream stream{h.payload.cmd_data, h.payload.cmd_size};
  const Error err = npu->invoke(stream, regions, kNumRegions);
  if (err != Error::Ok) {
    ET_LOG(Error, "EthosUBackend: %s failed to run the command stream (error 0x%x)", npu->name(),
           static_cast<unsigned>(err));
    return err;
  }
  for (uint32_t i = 0; i < num_outputs; ++i) {
    const TensorEntry& e = h.entries[num_inputs + i];
    const Tensor& t = args[num_inputs + i]->toTensor();
    copy_out(h, e, t, t.scalar_type() == ScalarType::Long);
  }
  return Error::Ok;
}

void EthosUBackend::destroy(DelegateHandle* handle) const {
  if (handle == nullptr) {
    return;
  }
  Handle* h = static_cast<Handle*>(handle);
  release_regions(*h);
  h->~Handle();
}

HandleInfo handle_info(const DelegateHandle* handle) {
  HandleInfo info{};
  if (handle == nullptr) {
    return info;
  }
  const Handle& h = *static_cast<const Handle*>(handle);
  info.payload = h.payload;
  fill_regions(h, info.regions);
  return info;
}

namespace {
EthosUBackend g_backend;
const executorch::runtime::Backend g_registration{kBackendId, &g_backend};
const Error g_registration_status = executorch::runtime::register_backend(g_registration);
}  // namespace

Error registration_status() {
  return g_registration_status;
}

}  // namespace ethosu
}  // namespace etarm
