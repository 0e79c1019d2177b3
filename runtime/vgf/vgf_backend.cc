#include "runtime/vgf/vgf_backend.h"

#include <cinttypes>
#include <cstring>
#include <memory>
#include <new>
#include <string>

#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>
#include <executorch/runtime/platform/log.h>
#include <vulkan/vulkan_core.h>

#include "runtime/executorch_names.h"
#include "runtime/vgf/text.h"

namespace etarm {
namespace vgf {
namespace {

struct Handle {
  std::unique_ptr<VulkanGraph> graph;
};

// The ExecuTorch dtype of a tensor format; Undefined when there is none.
ScalarType scalar_type_of(int32_t vk_format) {
  switch (vk_format) {
    case VK_FORMAT_R8_BOOL_ARM:
      return ScalarType::Bool;
    case VK_FORMAT_R8_UINT:
      return ScalarType::Byte;
    case VK_FORMAT_R8_SINT:
      return ScalarType::Char;
    case VK_FORMAT_R16_SINT:
      return ScalarType::Short;
    case VK_FORMAT_R16_SFLOAT:
      return ScalarType::Half;
    case VK_FORMAT_R32_SINT:
      return ScalarType::Int;
    case VK_FORMAT_R32_SFLOAT:
      return ScalarType::Float;
    case VK_FORMAT_R64_SINT:
      return ScalarType::Long;
    default:
      return ScalarType::Undefined;
  }
}

const char* direction(bool output) {
  return output ? "output" : "input";
}

// Checks a delegate argument against graph tensor `t`. Sets *widened when the argument is
// int64 and the tensor int32 (narrowed on the way in, widened on the way out).
Error check_argument(const TensorDescription& t, const EValue* value, bool output, size_t index, bool* widened) {
  const char* what = direction(output);
  if (value == nullptr || !value->isTensor()) {
    ET_LOG(Error, "VgfBackend: %s %zu of the delegate call is not a tensor", what, index);
    return Error::InvalidArgument;
  }
  const Tensor& tensor = value->toTensor();
  const ScalarType type = tensor.scalar_type();
  const ScalarType expected = scalar_type_of(t.vk_format);
  *widened = type == ScalarType::Long && expected == ScalarType::Int;
  if (type != expected && !*widened) {
    ET_LOG(Error, "VgfBackend: %s %zu is a %s tensor; the graph's is %s (%s)", what, index,
           executorch::runtime::toString(type), executorch::runtime::toString(expected),
           format_name(t.vk_format).c_str());
    return Error::InvalidArgument;
  }
  const auto sizes = tensor.sizes();
  bool same_shape = sizes.size() == t.shape.size();
  for (size_t d = 0; same_shape && d < sizes.size(); ++d) {
    same_shape = sizes[d] == t.shape[d];
  }
  // A Vulkan tensor has at least one dimension: a rank-0 argument (one element) binds to a
  // graph tensor of shape [1] (etarm's VGF target gives every rank-0 TOSA tensor that shape).
  same_shape = same_shape || (sizes.size() == 0 && t.shape.size() == 1 && t.shape[0] == 1);
  if (!same_shape) {
    int64_t dims[kMaxRank + 8];
    const size_t rank = sizes.size() < kMaxRank + 8 ? sizes.size() : kMaxRank + 8;
    for (size_t d = 0; d < rank; ++d) {
      dims[d] = sizes[d];
    }
    ET_LOG(Error, "VgfBackend: %s %zu has shape %s; the graph's is %s", what, index, shape_string(dims, rank).c_str(),
           shape_string(t.shape.data(), t.shape.size()).c_str());
    return Error::InvalidArgument;
  }
  // Contiguous in its own dimension order (a tensor made without one is), with packed strides.
  const auto dim_order = tensor.dim_order();
  for (size_t d = 0; dim_order.data() != nullptr && d < dim_order.size(); ++d) {
    if (dim_order[d] != d) {
      ET_LOG(Error, "VgfBackend: %s %zu is not contiguous (dimension order, e.g. channels-last); the graph takes "
             "packed row-major tensors", what, index);
      return Error::InvalidArgument;
    }
  }
  const auto strides = tensor.strides();
  int64_t packed = 1;
  for (size_t d = strides.size(); strides.data() != nullptr && d-- > 0;) {
    if (sizes[d] != 1 && strides[d] != packed) {
      ET_LOG(Error, "VgfBackend: %s %zu has stride %d in dimension %zu; a packed tensor has %" PRId64, what, index,
             static_cast<int>(strides[d]), d, packed);
      return Error::InvalidArgument;
    }
    packed *= sizes[d];
  }
  const size_t expected_bytes = static_cast<size_t>(*widened ? t.nbytes * 2 : t.nbytes);
  if (tensor.nbytes() != expected_bytes) {
    ET_LOG(Error, "VgfBackend: %s %zu holds %zu bytes; the graph's %zu", what, index, tensor.nbytes(), expected_bytes);
    return Error::InvalidArgument;
  }
  if (expected_bytes != 0 && (output ? tensor.mutable_data_ptr() : tensor.const_data_ptr()) == nullptr) {
    ET_LOG(Error, "VgfBackend: %s %zu has no data", what, index);
    return Error::InvalidArgument;
  }
  return Error::Ok;
}

Error copy_in(const TensorDescription& t, const Tensor& tensor, bool widened, uint8_t* dst, size_t index) {
  const uint8_t* src = static_cast<const uint8_t*>(tensor.const_data_ptr());
  if (!widened) {
    std::memcpy(dst, src, t.nbytes);
    return Error::Ok;
  }
  for (size_t k = 0; k < t.element_count; ++k) {
    int64_t v;
    std::memcpy(&v, src + 8 * k, sizeof(v));
    if (v < INT32_MIN || v > INT32_MAX) {
      ET_LOG(Error, "VgfBackend: input %zu element %zu is %" PRId64 ", outside the int32 range the graph computes in",
             index, k, v);
      return Error::InvalidArgument;
    }
    const int32_t narrow = static_cast<int32_t>(v);
    std::memcpy(dst + 4 * k, &narrow, sizeof(narrow));
  }
  return Error::Ok;
}

void copy_out(const TensorDescription& t, const uint8_t* src, const Tensor& tensor, bool widened) {
  uint8_t* dst = static_cast<uint8_t*>(tensor.mutable_data_ptr());
  if (!widened) {
    std::memcpy(dst, src, t.nbytes);
    return;
  }
  for (size_t k = 0; k < t.element_count; ++k) {
    int32_t v;
    std::memcpy(&v, src + 4 * k, sizeof(v));
    const int64_t wide = v;
    std::memcpy(dst + 8 * k, &wide, sizeof(wide));
  }
}

// Refuses graphs whose inputs or outputs no ExecuTorch dtype describes.
Error check_io_types(const VulkanGraph& graph) {
  for (size_t k = 0; k < graph.num_inputs() + graph.num_outputs(); ++k) {
    const bool output = k >= graph.num_inputs();
    const size_t index = output ? k - graph.num_inputs() : k;
    const TensorDescription& t = output ? graph.output(index) : graph.input(index);
    if (scalar_type_of(t.vk_format) == ScalarType::Undefined) {
      ET_LOG(Error, "VgfBackend: graph %s %zu has format %s, which no ExecuTorch dtype matches", direction(output),
             index, format_name(t.vk_format).c_str());
      return Error::NotSupported;
    }
  }
  return Error::Ok;
}

}  // namespace

bool VgfBackend::is_available() const {
  // The device is created by init(), which reports a missing one with its reason.
  return true;
}

Result<DelegateHandle*> VgfBackend::init(BackendInitContext& context, FreeableBuffer* processed,
                                         ArrayRef<CompileSpec> compile_specs) const {
  (void)context;
  (void)compile_specs;  // the .vgf says everything
  if (processed == nullptr) {
    ET_LOG(Error, "VgfBackend: init without a payload");
    return Error::InvalidArgument;
  }
  Result<const void*> data = processed->data_safe();
  if (!data.ok()) {
    return data.error();
  }
  const size_t size = processed->size();
  const uint8_t* bytes = static_cast<const uint8_t*>(data.get());
  // The VGF decoder reads 64-bit fields in place: copy a payload the loader did not align.
  std::unique_ptr<uint64_t[]> aligned;
  if (reinterpret_cast<uintptr_t>(bytes) % kPayloadAlignment != 0) {
    aligned.reset(new (std::nothrow) uint64_t[size / 8 + 1]);
    if (aligned == nullptr) {
      ET_LOG(Error, "VgfBackend: no memory to align the %zu-byte payload", size);
      return Error::MemoryAllocationFailed;
    }
    std::memcpy(aligned.get(), bytes, size);
    bytes = reinterpret_cast<const uint8_t*>(aligned.get());
  }
  std::string why;
  VgfModel model;
  Error err = parse_vgf(bytes, size, &model, &why);
  if (err != Error::Ok) {
    ET_LOG(Error, "VgfBackend: invalid payload (%zu bytes): %s", size, why.c_str());
    return err;
  }
  std::shared_ptr<VulkanDevice> device;
  err = VulkanDevice::shared(&device, &why);
  if (err != Error::Ok) {
    ET_LOG(Error, "VgfBackend: no Vulkan device for VGF graphs: %s", why.c_str());
    return err;
  }
  std::unique_ptr<Handle> handle(new (std::nothrow) Handle);
  if (handle == nullptr) {
    return Error::MemoryAllocationFailed;
  }
  err = VulkanGraph::create(device, model, &handle->graph, &why);
  if (err != Error::Ok) {
    ET_LOG(Error, "VgfBackend: cannot build the graph on %s: %s", device->description().c_str(), why.c_str());
    return err;
  }
  err = check_io_types(*handle->graph);
  if (err != Error::Ok) {
    return err;
  }
  ET_LOG(Info,
         "VgfBackend: %zu segment(s), %zu input(s), %zu output(s) on %s; pipelines built in %.3f s; %zu staged "
         "through copies",
         model.segments.size(), handle->graph->num_inputs(), handle->graph->num_outputs(),
         device->description().c_str(), handle->graph->pipeline_seconds(), handle->graph->staged_tensors());
  // The pipelines hold their own copies of the SPIR-V and the constants.
  processed->Free();
  return static_cast<DelegateHandle*>(handle.release());
}

Error VgfBackend::execute(BackendExecutionContext& context, DelegateHandle* handle, Span<EValue*> args) const {
  (void)context;
  if (handle == nullptr) {
    return Error::InvalidArgument;
  }
  VulkanGraph& graph = *static_cast<Handle*>(handle)->graph;
  const size_t num_inputs = graph.num_inputs();
  const size_t num_outputs = graph.num_outputs();
  if (args.size() != num_inputs + num_outputs) {
    ET_LOG(Error, "VgfBackend: the delegate call passes %zu values; the graph has %zu inputs and %zu outputs",
           args.size(), num_inputs, num_outputs);
    return Error::InvalidArgument;
  }
  bool widened = false;
  // Every output is checked before anything runs; then the inputs are checked and copied.
  for (size_t i = 0; i < num_outputs; ++i) {
    const Error err = check_argument(graph.output(i), args[num_inputs + i], true, i, &widened);
    if (err != Error::Ok) {
      return err;
    }
  }
  for (size_t i = 0; i < num_inputs; ++i) {
    Error err = check_argument(graph.input(i), args[i], false, i, &widened);
    if (err == Error::Ok) {
      err = copy_in(graph.input(i), args[i]->toTensor(), widened, graph.input_data(i), i);
    }
    if (err != Error::Ok) {
      return err;
    }
  }
  std::string why;
  const Error err = graph.run(&why);
  if (err != Error::Ok) {
    ET_LOG(Error, "VgfBackend: running the graph failed: %s", why.c_str());
    return err;
  }
  for (size_t i = 0; i < num_outputs; ++i) {
    const Tensor& tensor = args[num_inputs + i]->toTensor();
    const bool wide = tensor.scalar_type() == ScalarType::Long && graph.output(i).vk_format == VK_FORMAT_R32_SINT;
    copy_out(graph.output(i), graph.output_data(i), tensor, wide);
  }
  return Error::Ok;
}

void VgfBackend::destroy(DelegateHandle* handle) const {
  delete static_cast<Handle*>(handle);
}

const VulkanGraph* handle_graph(const DelegateHandle* handle) {
  return handle != nullptr ? static_cast<const Handle*>(handle)->graph.get() : nullptr;
}

namespace {
VgfBackend g_backend;
const executorch::runtime::Backend g_registration{kBackendId, &g_backend};
const Error g_registration_status = executorch::runtime::register_backend(g_registration);
}  // namespace

Error registration_status() {
  return g_registration_status;
}

}  // namespace vgf
}  // namespace etarm
