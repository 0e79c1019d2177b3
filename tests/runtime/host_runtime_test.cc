// Loads a .pte compiled by //:etarm through ExecuTorch's C++ API (the genuine prebuilt
// libexecutorch.so), runs it and compares every output with torch's (reference_io.py).
//
// usage: host_runtime_test MODEL.pte INPUTS.bin OUTPUTS.bin
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <vector>

#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/platform/runtime.h>

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::HierarchicalAllocator;
using executorch::runtime::MemoryAllocator;
using executorch::runtime::MemoryManager;
using executorch::runtime::Program;
using executorch::runtime::Span;

namespace {

int failures = 0;

void expect(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "FAILED: %s\n", what);
    ++failures;
  }
}

std::vector<char> read_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), {});
}

// Owns the sizes, strides and dim order a TensorImpl points at.
struct InputTensor {
  std::vector<TensorImpl::SizesType> sizes;
  std::vector<TensorImpl::DimOrderType> dim_order;
  std::vector<TensorImpl::StridesType> strides;
  std::vector<float> data;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s MODEL.pte INPUTS.bin OUTPUTS.bin\n", argv[0]);
    return 2;
  }
  executorch::runtime::runtime_init();

  auto loader = executorch::extension::FileDataLoader::from(argv[1]);
  expect(loader.ok(), "open the .pte");
  if (!loader.ok()) return 1;
  auto program = Program::load(&loader.get());
  expect(program.ok(), "Program::load");
  if (!program.ok()) return 1;

  auto meta = program->method_meta("forward");
  expect(meta.ok(), "method_meta(forward)");
  if (!meta.ok()) return 1;

  std::vector<std::vector<uint8_t>> planned_buffers;
  std::vector<Span<uint8_t>> planned_spans;
  for (size_t i = 0; i < meta->num_memory_planned_buffers(); ++i) {
    planned_buffers.emplace_back(meta->memory_planned_buffer_size(i).get());
    planned_spans.emplace_back(planned_buffers.back().data(), planned_buffers.back().size());
  }
  HierarchicalAllocator planned_memory({planned_spans.data(), planned_spans.size()});
  std::vector<uint8_t> method_pool(1 << 20);
  MemoryAllocator method_allocator(method_pool.size(), method_pool.data());
  MemoryManager memory_manager(&method_allocator, &planned_memory);

  auto method = program->load_method("forward", &memory_manager);
  expect(method.ok(), "load_method(forward): kernels for every op are registered");
  if (!method.ok()) return 1;

  std::vector<char> input_bytes = read_file(argv[2]);
  std::vector<char> expected_bytes = read_file(argv[3]);
  size_t input_offset = 0;
  std::vector<InputTensor> inputs(meta->num_inputs());
  std::vector<TensorImpl> impls;
  impls.reserve(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto tensor_meta = meta->input_tensor_meta(i);
    expect(tensor_meta.ok() && tensor_meta->scalar_type() == ScalarType::Float, "float input");
    InputTensor& in = inputs[i];
    in.sizes.assign(tensor_meta->sizes().begin(), tensor_meta->sizes().end());
    in.dim_order.assign(tensor_meta->dim_order().begin(), tensor_meta->dim_order().end());
    in.strides.resize(in.sizes.size());
    size_t numel = 1;
    for (size_t d = in.sizes.size(); d-- > 0;) {
      in.strides[d] = numel;
      numel *= in.sizes[d];
    }
    in.data.resize(numel);
    expect(input_offset + numel * sizeof(float) <= input_bytes.size(), "inputs.bin holds every input");
    if (failures) return 1;
    std::copy_n(input_bytes.data() + input_offset, numel * sizeof(float), reinterpret_cast<char*>(in.data.data()));
    input_offset += numel * sizeof(float);
    impls.emplace_back(ScalarType::Float, in.sizes.size(), in.sizes.data(), in.data.data(), in.dim_order.data(),
                       in.strides.data());
    expect(method->set_input(EValue(Tensor(&impls.back())), i) == Error::Ok, "set_input");
  }
  expect(input_offset == input_bytes.size(), "inputs.bin has no extra bytes");

  expect(method->execute() == Error::Ok, "execute");
  if (failures) return 1;

  size_t expected_offset = 0;
  for (size_t i = 0; i < method->outputs_size(); ++i) {
    const EValue& output = method->get_output(i);
    expect(output.isTensor(), "output is a tensor");
    const Tensor& tensor = output.toTensor();
    const float* got = tensor.const_data_ptr<float>();
    const float* want = reinterpret_cast<const float*>(expected_bytes.data() + expected_offset);
    expected_offset += tensor.numel() * sizeof(float);
    expect(expected_offset <= expected_bytes.size(), "outputs.bin holds every output");
    if (failures) return 1;
    double worst = 0;
    for (ssize_t k = 0; k < tensor.numel(); ++k) worst = std::fmax(worst, std::fabs(got[k] - want[k]));
    std::printf("output %zu: %zd values, max |runtime - torch| = %g\n", i, static_cast<ssize_t>(tensor.numel()), worst);
    expect(worst <= 1e-5, "output matches torch within 1e-5");
  }
  expect(expected_offset == expected_bytes.size(), "outputs.bin has no extra bytes");
  std::printf("%s\n", failures ? "FAIL" : "PASS");
  return failures ? 1 : 0;
}
