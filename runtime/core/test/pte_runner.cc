// Runs a .pte through the ExecuTorch runtime API and writes or checks its outputs.
// Built twice from this one source: against the genuine prebuilt runtime
// (@executorch_wheel) and against //runtime/core, which is what makes the differential
// test a comparison of the two runtimes on the same program and inputs.
//
// usage: pte_runner MODEL.pte INPUTS.bin [--write OUT.bin]
//                   [--expect REF.bin ABS_TOL REL_TOL]...
// INPUTS.bin holds every float input tensor, raw, in order. Outputs (float tensors) are
// written / compared the same way; an output matches when
// |got - ref| <= ABS_TOL + REL_TOL * |ref| for every element.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/platform/runtime.h>

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::extension::FileDataLoader;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::HierarchicalAllocator;
using executorch::runtime::MemoryAllocator;
using executorch::runtime::MemoryManager;
using executorch::runtime::Program;
using executorch::runtime::Span;

namespace {

bool read_file(const char* path, std::vector<char>* out) {
  FILE* f = std::fopen(path, "rb");
  if (f == nullptr) {
    return false;
  }
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) {
    out->insert(out->end(), buf, buf + n);
  }
  std::fclose(f);
  return true;
}

int fail(const char* what, Error err = Error::Ok) {
  std::fprintf(stderr, "FAILED: %s%s%s\n", what, err == Error::Ok ? "" : ": ", err == Error::Ok ? "" : to_string(err));
  return 1;
}

struct Expectation {
  const char* path;
  double atol;
  double rtol;
};

} // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s MODEL.pte INPUTS.bin [--write OUT.bin] [--expect REF.bin ATOL RTOL]...\n", argv[0]);
    return 2;
  }
  const char* write_path = nullptr;
  std::vector<Expectation> expectations;
  for (int i = 3; i < argc; ++i) {
    if (std::strcmp(argv[i], "--write") == 0 && i + 1 < argc) {
      write_path = argv[++i];
    } else if (std::strcmp(argv[i], "--expect") == 0 && i + 3 < argc) {
      expectations.push_back({argv[i + 1], std::atof(argv[i + 2]), std::atof(argv[i + 3])});
      i += 3;
    } else {
      std::fprintf(stderr, "unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  executorch::runtime::runtime_init();

  auto loader = FileDataLoader::from(argv[1]);
  if (!loader.ok()) return fail("open the .pte", loader.error());
  auto program = Program::load(&loader.get(), Program::Verification::InternalConsistency);
  if (!program.ok()) return fail("Program::load", program.error());
  auto meta = program->method_meta("forward");
  if (!meta.ok()) return fail("method_meta(forward)", meta.error());

  std::vector<std::vector<uint8_t>> planned_buffers;
  std::vector<Span<uint8_t>> planned_spans;
  for (size_t i = 0; i < meta->num_memory_planned_buffers(); ++i) {
    planned_buffers.emplace_back(static_cast<size_t>(meta->memory_planned_buffer_size(i).get()));
  }
  for (auto& b : planned_buffers) {
    planned_spans.emplace_back(b.data(), b.size());
  }
  HierarchicalAllocator planned_memory({planned_spans.data(), planned_spans.size()});
  std::vector<uint8_t> method_pool(1 << 20);
  MemoryAllocator method_allocator(method_pool.size(), method_pool.data());
  std::vector<uint8_t> temp_pool(1 << 20);
  MemoryAllocator temp_allocator(temp_pool.size(), temp_pool.data());
  MemoryManager memory_manager(&method_allocator, &planned_memory, &temp_allocator);

  auto method = program->load_method("forward", &memory_manager);
  if (!method.ok()) return fail("load_method(forward)", method.error());

  std::vector<char> input_bytes;
  if (!read_file(argv[2], &input_bytes)) return fail("read the inputs");
  // Owned storage for the input tensors (sizes, dim order, strides, data).
  struct Input {
    std::vector<TensorImpl::SizesType> sizes;
    std::vector<TensorImpl::DimOrderType> dim_order;
    std::vector<TensorImpl::StridesType> strides;
    std::vector<float> data;
  };
  std::vector<Input> inputs(meta->num_inputs());
  std::vector<TensorImpl> impls;
  impls.reserve(inputs.size());
  size_t offset = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto info = meta->input_tensor_meta(i);
    if (!info.ok() || info->scalar_type() != ScalarType::Float) return fail("every input is a float tensor");
    Input& in = inputs[i];
    in.sizes.assign(info->sizes().begin(), info->sizes().end());
    in.dim_order.assign(info->dim_order().begin(), info->dim_order().end());
    in.strides.resize(in.sizes.size());
    size_t numel = 1;
    for (size_t d = in.sizes.size(); d-- > 0;) {
      in.strides[d] = static_cast<TensorImpl::StridesType>(numel);
      numel *= in.sizes[d];
    }
    if (offset + numel * sizeof(float) > input_bytes.size()) return fail("INPUTS.bin holds every input");
    in.data.resize(numel);
    std::memcpy(in.data.data(), input_bytes.data() + offset, numel * sizeof(float));
    offset += numel * sizeof(float);
    impls.emplace_back(
        ScalarType::Float, in.sizes.size(), in.sizes.data(), in.data.data(), in.dim_order.data(), in.strides.data());
    const Error err = method->set_input(EValue(Tensor(&impls.back())), i);
    if (err != Error::Ok) return fail("set_input", err);
  }
  if (offset != input_bytes.size()) return fail("INPUTS.bin has no extra bytes");

  const Error err = method->execute();
  if (err != Error::Ok) return fail("execute", err);

  std::vector<float> outputs;
  for (size_t i = 0; i < method->outputs_size(); ++i) {
    const EValue& out = method->get_output(i);
    if (!out.isTensor() || out.toTensor().scalar_type() != ScalarType::Float) return fail("every output is a float tensor");
    const Tensor& t = out.toTensor();
    outputs.insert(outputs.end(), t.const_data_ptr<float>(), t.const_data_ptr<float>() + t.numel());
  }
  std::printf("%zu outputs, %zu values\n", method->outputs_size(), outputs.size());

  if (write_path != nullptr) {
    FILE* f = std::fopen(write_path, "wb");
    if (f == nullptr || std::fwrite(outputs.data(), sizeof(float), outputs.size(), f) != outputs.size()) {
      return fail("write the outputs");
    }
    std::fclose(f);
  }
  int failures = 0;
  for (const Expectation& e : expectations) {
    std::vector<char> ref_bytes;
    if (!read_file(e.path, &ref_bytes) || ref_bytes.size() != outputs.size() * sizeof(float)) {
      std::fprintf(stderr, "FAILED: %s does not hold %zu floats\n", e.path, outputs.size());
      ++failures;
      continue;
    }
    std::vector<float> ref(outputs.size());
    std::memcpy(ref.data(), ref_bytes.data(), ref_bytes.size());
    double worst = 0;
    size_t bad = 0;
    for (size_t k = 0; k < ref.size(); ++k) {
      const double diff = std::fabs(static_cast<double>(outputs[k]) - ref[k]);
      worst = std::fmax(worst, diff);
      if (!(diff <= e.atol + e.rtol * std::fabs(ref[k]))) {
        ++bad;
      }
    }
    std::printf("vs %s: max |diff| = %g, %zu of %zu values outside tolerance\n", e.path, worst, bad, ref.size());
    failures += bad != 0;
  }
  std::printf("%s\n", failures ? "FAIL" : "PASS");
  return failures ? 1 : 0;
}
