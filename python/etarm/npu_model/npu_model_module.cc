// etarm.npu_model._npu_model: runs one Ethos-U55/U65 command stream on etarm's NPU model
// (runtime/ethosu/npu_model) against memory regions Python owns. The payload framing,
// tensor placement and dtypes are etarm/npu_model/__init__.py's business; this module only
// hands the model the stream and the regions, as the EthosUBackend delegate's driver does.
#include <pybind11/pybind11.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "runtime/ethosu/npu_model/npu_model.h"

namespace py = pybind11;

namespace etarm {
namespace ethosu {
namespace npu_model {
namespace {

// The regions the delegate hands the NPU are 16-byte aligned; Python's buffers need not be.
class AlignedBytes {
 public:
  explicit AlignedBytes(size_t size) : chunks_(size / sizeof(Chunk) + 1), size_(size) {}
  uint8_t* data() {
    return reinterpret_cast<uint8_t*>(chunks_.data());
  }
  size_t size() const {
    return size_;
  }

 private:
  struct alignas(16) Chunk {
    uint8_t bytes[16];
  };
  std::vector<Chunk> chunks_;
  size_t size_;
};

AlignedBytes copy_of(const py::buffer_info& info) {
  AlignedBytes copy(static_cast<size_t>(info.size * info.itemsize));
  if (copy.size() != 0) std::memcpy(copy.data(), info.ptr, copy.size());
  return copy;
}

py::buffer_info contiguous_bytes(const py::buffer& buffer, bool writable, const char* what) {
  py::buffer_info info = buffer.request(writable);
  const bool contiguous = info.ndim <= 1 && (info.ndim == 0 || info.strides[0] == info.itemsize);
  if (!contiguous) throw py::value_error(std::string(what) + " must be a contiguous one-dimensional buffer");
  return info;
}

const char* fault_name(Fault fault) {
  switch (fault) {
    case Fault::kNone:
      return "";
    case Fault::kMalformedStream:
      return "malformed stream";
    case Fault::kOutOfBounds:
      return "out of bounds";
    case Fault::kBadWeights:
      return "bad weights";
    case Fault::kUnsupported:
      return "not supported";
    case Fault::kConfigMismatch:
      return "configuration mismatch";
    case Fault::kOutOfMemory:
      return "out of memory";
    case Fault::kHazard:
      return "hazard";
  }
  return "unknown fault";
}

// Runs `command_stream` with `weights` as region 0 (read-only) and `scratch`, `fast_scratch`
// as regions 1 and 2, which receive what the NPU writes. Returns (fault, message): ("", "")
// after a success, else the kind of fault and the model's line naming the command and offset.
py::tuple run(const std::string& accelerator_name, const py::buffer& command_stream, const py::buffer& weights,
              const py::buffer& scratch, const py::buffer& fast_scratch) {
  const Accelerator* accelerator = find_accelerator(accelerator_name.c_str());
  if (accelerator == nullptr) throw py::value_error("the NPU model has no configuration '" + accelerator_name + "'");
  AlignedBytes stream = copy_of(contiguous_bytes(command_stream, false, "the command stream"));
  AlignedBytes weight_bytes = copy_of(contiguous_bytes(weights, false, "the weights"));
  const py::buffer_info scratch_info = contiguous_bytes(scratch, true, "the scratch arena");
  const py::buffer_info fast_info = contiguous_bytes(fast_scratch, true, "the fast scratch");
  AlignedBytes scratch_bytes = copy_of(scratch_info);
  AlignedBytes fast_bytes = copy_of(fast_info);

  Status status;
  {
    py::gil_scoped_release unlocked;
    // The model holds the NPU's SHRAM: too large for the stack of a Python thread.
    auto model = std::make_unique<NpuModel>(accelerator);
    const Region regions[] = {
        {weight_bytes.data(), weight_bytes.size(), false},
        {scratch_bytes.data(), scratch_bytes.size(), true},
        {fast_bytes.size() ? fast_bytes.data() : nullptr, fast_bytes.size(), true},
    };
    status = model->run(stream.data(), stream.size(), regions, sizeof(regions) / sizeof(regions[0]));
  }
  if (status.ok()) {
    if (scratch_bytes.size() != 0) std::memcpy(scratch_info.ptr, scratch_bytes.data(), scratch_bytes.size());
    if (fast_bytes.size() != 0) std::memcpy(fast_info.ptr, fast_bytes.data(), fast_bytes.size());
  }
  return py::make_tuple(fault_name(status.fault()), status.message());
}

}  // namespace
}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm

PYBIND11_MODULE(_npu_model, module) {
  module.doc() = "Runs an Ethos-U55/U65 command stream on etarm's NPU model (etarm.npu_model is the Python face).";
  module.def("run", &etarm::ethosu::npu_model::run, py::arg("accelerator"), py::arg("command_stream"),
             py::arg("weights"), py::arg("scratch"), py::arg("fast_scratch"));
}
