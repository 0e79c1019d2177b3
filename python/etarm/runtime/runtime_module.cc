// etarm.runtime._runtime: runs a .pte in-process on ExecuTorch's genuine host runtime
// (libexecutorch.so and its CPU kernels) through etarm's Runner, the same C++ the runner
// binaries use. Delegates whose host device is Python code (the TOSA reference model)
// register with register_python_backend(); the Ethos-U delegate itself is linked in and runs
// its command streams on the NPU model (use_npu_model()). etarm/runtime/__init__.py is the
// Python face.
//
// The GIL is held throughout: a Python device's load/execute are called from inside
// Method::load / Method::execute on the calling thread.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <cstring>
#include <list>
#include <map>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include <executorch/extension/data_loader/buffer_data_loader.h>
#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/kernel/operator_registry.h>

#include "runtime/ethosu/driver.h"
#include "runtime/ethosu/npu_model/npu_model_driver.h"
#include "runtime/executorch_names.h"
#include "runtime/runner/runner.h"

namespace py = pybind11;

namespace etarm {
namespace python_runtime {
namespace {

using executorch::runtime::BackendExecutionContext;
using executorch::runtime::BackendInitContext;
using executorch::runtime::BackendInterface;
using executorch::runtime::CompileSpec;
using executorch::runtime::DelegateHandle;
using executorch::runtime::FreeableBuffer;
using executorch::runtime::Tag;

// What a Python device raised inside the runtime; the runtime only sees an Error, so
// Program.run() re-raises this message.
std::string g_device_error;

// "<ExceptionType>: <message>" (without the traceback error_already_set::what() adds).
std::string describe(const py::error_already_set& error) {
  return std::string(py::str(error.type().attr("__name__"))) + ": " + std::string(py::str(error.value()));
}

// numpy's name for an ExecuTorch dtype, nullptr when numpy has none. bf16 and fp8 are
// ml_dtypes' types (numpy knows their names once ml_dtypes is imported: see the module init).
const char* numpy_dtype(ScalarType type) {
  switch (type) {
    case ScalarType::BFloat16:
      return "bfloat16";
    case ScalarType::Float8_e4m3fn:
      return "float8_e4m3fn";
    case ScalarType::Float8_e5m2:
      return "float8_e5m2";
    case ScalarType::Float:
      return "float32";
    case ScalarType::Double:
      return "float64";
    case ScalarType::Half:
      return "float16";
    case ScalarType::Char:
      return "int8";
    case ScalarType::Byte:
      return "uint8";
    case ScalarType::Short:
      return "int16";
    case ScalarType::Int:
      return "int32";
    case ScalarType::Long:
      return "int64";
    case ScalarType::Bool:
      return "bool";
    default:
      return nullptr;
  }
}

std::vector<py::ssize_t> shape_of(const Tensor& tensor) {
  return std::vector<py::ssize_t>(tensor.sizes().begin(), tensor.sizes().end());
}

// A copy of a (contiguous) tensor as a numpy array.
py::object to_numpy(const Tensor& tensor) {
  const char* dtype = numpy_dtype(tensor.scalar_type());
  if (dtype == nullptr) throw std::runtime_error("a tensor dtype numpy cannot hold");
  py::array array(py::dtype(dtype), shape_of(tensor));
  std::memcpy(array.mutable_data(), tensor.const_data_ptr(), tensor.nbytes());
  return std::move(array);
}

py::object to_python(const EValue& value) {
  if (value.isTensor()) return to_numpy(value.toTensor());
  if (value.isInt()) return py::int_(value.toInt());
  if (value.isDouble()) return py::float_(value.toDouble());
  if (value.isBool()) return py::bool_(value.toBool());
  return py::none();
}

// A delegate whose device is a Python object: device.load(payload: bytes, compile_specs:
// dict[str, bytes]) -> session; session.execute(args: list) -> the outputs (numpy arrays,
// already in the dtype and shape of the output arguments they fill: the last ones of args).
class PythonBackend final : public BackendInterface {
 public:
  explicit PythonBackend(py::object device) : device_(device.release().ptr()) {}

  void set_device(py::object device) {
    Py_XDECREF(device_);
    device_ = device.release().ptr();
  }

  bool is_available() const override {
    return true;
  }

  Result<DelegateHandle*> init(BackendInitContext&, FreeableBuffer* processed,
                               ArrayRef<CompileSpec> compile_specs) const override {
    try {
      py::bytes payload(static_cast<const char*>(processed->data()), processed->size());
      py::dict specs;
      for (const CompileSpec& spec : compile_specs) {
        specs[py::str(spec.key)] = py::bytes(static_cast<const char*>(spec.value.buffer), spec.value.nbytes);
      }
      py::object session = py::reinterpret_borrow<py::object>(device_).attr("load")(payload, specs);
      processed->Free();
      return reinterpret_cast<DelegateHandle*>(new py::object(std::move(session)));
    } catch (py::error_already_set& e) {
      g_device_error = describe(e);
      return Error::DelegateInvalidCompatibility;
    }
  }

  Error execute(BackendExecutionContext&, DelegateHandle* handle, Span<EValue*> args) const override {
    try {
      py::list values;
      for (EValue* arg : args) values.append(to_python(*arg));
      py::list outputs(reinterpret_cast<py::object*>(handle)->attr("execute")(values));
      if (outputs.size() > args.size()) throw std::runtime_error("the device returned more outputs than arguments");
      const size_t first_output = args.size() - outputs.size();
      for (size_t j = 0; j < outputs.size(); ++j) {
        EValue* arg = args[first_output + j];
        auto array = py::array::ensure(outputs[j], py::array::c_style);
        if (!arg->isTensor() || !array || static_cast<size_t>(array.nbytes()) != arg->toTensor().nbytes()) {
          throw std::runtime_error("output " + std::to_string(j) + " does not match its output tensor's size");
        }
        std::memcpy(arg->toTensor().mutable_data_ptr(), array.data(), array.nbytes());
      }
      return Error::Ok;
    } catch (py::error_already_set& e) {
      g_device_error = describe(e);
    } catch (std::exception& e) {
      g_device_error = e.what();
    }
    return Error::DelegateInvalidHandle;
  }

  void destroy(DelegateHandle* handle) const override {
    delete reinterpret_cast<py::object*>(handle);
  }

 private:
  PyObject* device_;  // owned reference
};

// Registered backends live as long as the process (the runtime's registry keeps pointers).
struct PythonBackendEntry {
  std::string id;
  PythonBackend backend;
};
std::list<PythonBackendEntry>& python_backends() {
  static auto* entries = new std::list<PythonBackendEntry>();
  return *entries;
}

void register_python_backend(const std::string& id, py::object device) {
  for (PythonBackendEntry& entry : python_backends()) {
    if (entry.id == id) {
      entry.backend.set_device(std::move(device));
      return;
    }
  }
  python_backends().push_back({id, PythonBackend(std::move(device))});
  PythonBackendEntry& entry = python_backends().back();
  const Error err = executorch::runtime::register_backend({entry.id.c_str(), &entry.backend});
  if (err != Error::Ok) {
    python_backends().pop_back();
    throw std::runtime_error("cannot register backend " + id + ": " + executorch::runtime::to_string(err));
  }
}

// The operators the host runtime has kernels for, e.g. "aten::add.out".
py::set registered_operators() {
  py::set names;
  for (const executorch::runtime::Kernel& kernel : executorch::runtime::get_registered_kernels()) {
    names.add(py::str(kernel.name_));
  }
  return names;
}

// ExecuTorch's Arm backend leaves its partitions' boundary (de)quantization on the CPU as
// cortex_m::quantize_per_tensor.out / dequantize_per_tensor.out, which it defines as the
// quantized_decomposed operators (same arithmetic). The host runtime registers them under
// those names too, so that backend's .pte files run here as they are; a cortex_m kernel of
// the same name, when one is linked, keeps precedence.
using executorch::runtime::EValue;
using executorch::runtime::KernelRuntimeContext;
using executorch::runtime::OpFunction;

// quantized_decomposed::dequantize_per_tensor.out has an optional out_dtype before `out`
// that the cortex_m schema lacks. A kernel's stack is its arguments, then its result.
constexpr size_t kDequantizeStack = 8;      // input, scale, zero_point, quant_min, quant_max, dtype, out, result
constexpr size_t kOutDtypePosition = 6;
OpFunction g_dequantize_with_out_dtype = nullptr;

void dequantize_without_out_dtype(KernelRuntimeContext& context, executorch::runtime::Span<EValue*> stack) {
  if (stack.size() != kDequantizeStack) {
    context.fail(executorch::runtime::Error::InvalidArgument);
    return;
  }
  static EValue none;  // out_dtype None: the input's float type
  EValue* widened[kDequantizeStack + 1];
  for (size_t i = 0, j = 0; i <= kDequantizeStack; ++i) {
    widened[i] = i == kOutDtypePosition ? &none : stack[j++];
  }
  g_dequantize_with_out_dtype(context, {widened, kDequantizeStack + 1});
}

const executorch::runtime::Kernel* find_kernel(const char* name) {
  for (const executorch::runtime::Kernel& kernel : executorch::runtime::get_registered_kernels()) {
    if (std::strcmp(kernel.name_, name) == 0) {
      return &kernel;
    }
  }
  return nullptr;
}

void register_peer_boundary_operators() {
  static constexpr char kQuantize[] = "cortex_m::quantize_per_tensor.out";
  static constexpr char kDequantize[] = "cortex_m::dequantize_per_tensor.out";
  std::vector<executorch::runtime::Kernel> aliases;
  const auto* quantize = find_kernel("quantized_decomposed::quantize_per_tensor.out");
  if (quantize != nullptr && find_kernel(kQuantize) == nullptr) {
    aliases.emplace_back(kQuantize, quantize->kernel_key_, quantize->op_);
  }
  const auto* dequantize = find_kernel("quantized_decomposed::dequantize_per_tensor.out");
  if (dequantize != nullptr && find_kernel(kDequantize) == nullptr) {
    g_dequantize_with_out_dtype = dequantize->op_;
    aliases.emplace_back(kDequantize, dequantize->kernel_key_, &dequantize_without_out_dtype);
  }
  if (!aliases.empty() &&
      executorch::runtime::register_kernels({aliases.data(), aliases.size()}) != executorch::runtime::Error::Ok) {
    throw std::runtime_error("cannot register the cortex_m boundary (de)quantize operators");
  }
}

// The NPU model driver the Ethos-U delegate runs on, one per accelerator (the delegate keeps
// a pointer to the installed one: they live as long as the process).
ethosu::NpuModelDriver* g_npu_model = nullptr;

void use_npu_model(const std::string& accelerator) {
  static auto* drivers = new std::map<std::string, std::unique_ptr<ethosu::NpuModelDriver>>();
  auto found = drivers->find(accelerator);
  if (found == drivers->end()) {
    found = drivers->emplace(accelerator, nullptr).first;
    found->second.reset(new ethosu::NpuModelDriver(found->first.c_str()));
  }
  g_npu_model = found->second.get();
  ethosu::set_driver(g_npu_model);
}

uint64_t monotonic_ns() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

[[noreturn]] void raise_error(const char* step, Error err) {
  std::string message = std::string(step) + ": " + executorch::runtime::to_string(err);
  if (!g_device_error.empty()) message += ": " + g_device_error;
  g_device_error.clear();
  if (g_npu_model != nullptr && g_npu_model->last_error()[0] != '\0') {
    message += std::string(": NPU model: ") + g_npu_model->last_error();
  }
  throw std::runtime_error(message);
}

// One loaded program ("forward"), its arena and the Runner over it.
class Program {
 public:
  Program(const py::bytes& pte, size_t arena_bytes)
      : pte_(static_cast<std::string>(pte)),
        // new[] does not touch the pages: only what the method uses becomes resident.
        arena_(new (std::align_val_t(64)) uint8_t[arena_bytes]),
        runner_(arena_.get(), arena_bytes),
        loader_(pte_.data(), pte_.size()) {
    runner_.set_clock(monotonic_ns, 1000, "ns");
    g_device_error.clear();
    const Error err = runner_.load(&loader_);
    if (err != Error::Ok) raise_error("load", err);
  }

  // Per input: (dtype, shape) for tensors, (kind, None) for other values.
  py::list input_specs() {
    executorch::runtime::Method& method = runner_.method();
    py::list specs;
    for (size_t i = 0; i < method.inputs_size(); ++i) {
      const EValue& value = method.get_input(i);
      if (value.isTensor()) {
        const char* dtype = numpy_dtype(value.toTensor().scalar_type());
        specs.append(py::make_tuple(dtype != nullptr ? dtype : "unsupported", shape_of(value.toTensor())));
      } else {
        specs.append(py::make_tuple(executorch::runtime::tag_to_string(value.tag), py::none()));
      }
    }
    return specs;
  }

  // Runs once on the tensor inputs' bytes (each contiguous in its input's dtype, in input
  // order); returns (outputs, execute seconds, memory use).
  py::tuple run(const py::bytes& input_bytes) {
    const std::string bytes = input_bytes;
    g_device_error.clear();
    Error err = runner_.set_inputs(bytes.data(), bytes.size());
    if (err != Error::Ok) raise_error("set inputs", err);
    err = runner_.execute();
    if (err != Error::Ok) raise_error("execute", err);
    executorch::runtime::Method& method = runner_.method();
    py::list outputs;
    for (size_t i = 0; i < method.outputs_size(); ++i) outputs.append(to_python(method.get_output(i)));
    const runner::MemoryUse use = runner_.memory_use();
    py::dict memory;
    memory["arena_bytes"] = use.arena_bytes;
    memory["used_bytes"] = use.used_bytes();
    memory["planned_bytes"] = use.planned_bytes;
    memory["input_bytes"] = use.input_bytes;
    memory["method_bytes"] = use.method_bytes;
    return py::make_tuple(outputs, static_cast<double>(runner_.execute_ticks()) * 1e-9, memory);
  }

 private:
  struct AlignedDelete {
    void operator()(uint8_t* p) const {
      ::operator delete[](p, std::align_val_t(64));
    }
  };

  const std::string pte_;
  std::unique_ptr<uint8_t[], AlignedDelete> arena_;
  runner::Runner runner_;
  executorch::extension::BufferDataLoader loader_;
};

}  // namespace
}  // namespace python_runtime
}  // namespace etarm

PYBIND11_MODULE(_runtime, m) {
  namespace pr = etarm::python_runtime;
  m.doc() = "ExecuTorch's host runtime with etarm's runner and Python-device delegates";
  py::module_::import("ml_dtypes");  // registers bfloat16, float8_* with numpy (numpy_dtype)
  pr::register_peer_boundary_operators();
  m.def("registered_operators", &pr::registered_operators);
  m.def("use_npu_model", &pr::use_npu_model, py::arg("accelerator"));
  m.def("register_python_backend", &pr::register_python_backend, py::arg("backend_id"), py::arg("device"));
  py::class_<pr::Program>(m, "Program")
      .def(py::init<const py::bytes&, size_t>(), py::arg("pte"), py::arg("arena_bytes"))
      .def("input_specs", &pr::Program::input_specs)
      .def("run", &pr::Program::run, py::arg("input_bytes"));
}
