// The runner on Linux (host x86_64 with either runtime, aarch64-musl with runtime/core):
// the .pte and the inputs come from files.
//
// usage: runner MODEL.pte [INPUTS.bin] [--quiet] [--write OUT.bin]
//               [--expect REF.bin ABS_TOL REL_TOL]...
//        runner MODEL.bpte [--quiet]
//   INPUTS.bin  every tensor input's bytes, in order (default: all inputs are ones)
//   --quiet     do not print the output values
//   --write     write every output (float tensors), raw, in order
//   --expect    compare the float outputs with REF.bin: each element must satisfy
//               |got - ref| <= ABS_TOL + REL_TOL * |ref|; prints the largest |got - ref|
// A BundledProgram (told by its file identifier, BP08, whatever the file's name) carries its
// inputs, expected outputs and tolerance: every test case runs and is checked
// (bundled_check.h).
// Exit code: 0, 1 on any runtime Error or mismatch, 2 on bad usage.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#include <executorch/extension/data_loader/file_data_loader.h>

#include "runtime/runner/bundled_check.h"
#include "runtime/runner/bundled_program.h"
#include "runtime/runner/runner.h"

#ifndef ETARM_RUNNER_ARENA_BYTES
#define ETARM_RUNNER_ARENA_BYTES (256u << 20)
#endif

using executorch::aten::ScalarType;
using executorch::extension::FileDataLoader;
using executorch::runtime::Error;
using executorch::runtime::EValue;

namespace {

alignas(16) uint8_t arena[ETARM_RUNNER_ARENA_BYTES];

bool read_file(const char* path, std::vector<char>* out) {
  FILE* f = std::fopen(path, "rb");
  if (f == nullptr) return false;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) out->insert(out->end(), buf, buf + n);
  std::fclose(f);
  return true;
}

// True when the file starts like a BundledProgram.
bool is_bundle_file(const char* path) {
  uint8_t head[8];
  FILE* f = std::fopen(path, "rb");
  if (f == nullptr) return false;
  const size_t n = std::fread(head, 1, sizeof head, f);
  std::fclose(f);
  return etarm::runner::is_bundled_program(head, n);
}

uint64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

struct Expectation {
  const char* path;
  double atol;
  double rtol;
};

// Every output's float values, concatenated; false if an output is not a float tensor.
bool float_outputs(executorch::runtime::Method& method, std::vector<float>* out) {
  for (size_t i = 0; i < method.outputs_size(); ++i) {
    const EValue& value = method.get_output(i);
    if (!value.isTensor() || value.toTensor().scalar_type() != ScalarType::Float) return false;
    const auto& t = value.toTensor();
    out->insert(out->end(), t.const_data_ptr<float>(), t.const_data_ptr<float>() + t.numel());
  }
  return true;
}

// Prints the comparison; true when every value is within tolerance.
bool check(const std::vector<float>& got, const Expectation& e) {
  std::vector<char> bytes;
  if (!read_file(e.path, &bytes) || bytes.size() != got.size() * sizeof(float)) {
    std::printf("FAILED: %s does not hold %zu floats\n", e.path, got.size());
    return false;
  }
  std::vector<float> ref(got.size());
  std::memcpy(ref.data(), bytes.data(), bytes.size());
  double worst = 0;
  size_t bad = 0;
  for (size_t k = 0; k < ref.size(); ++k) {
    const double diff = std::fabs(static_cast<double>(got[k]) - ref[k]);
    worst = std::fmax(worst, diff);
    if (!(diff <= e.atol + e.rtol * std::fabs(ref[k]))) ++bad;
  }
  std::printf("vs %s: max |diff| = %g, %zu of %zu values outside tolerance\n", e.path, worst, bad, ref.size());
  return bad == 0;
}

}  // namespace

int main(int argc, char** argv) {
  const char* model_path = nullptr;
  const char* inputs_path = nullptr;
  const char* write_path = nullptr;
  bool quiet = false;
  std::vector<Expectation> expectations;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--write") == 0 && i + 1 < argc) {
      write_path = argv[++i];
    } else if (std::strcmp(argv[i], "--expect") == 0 && i + 3 < argc) {
      expectations.push_back({argv[i + 1], std::atof(argv[i + 2]), std::atof(argv[i + 3])});
      i += 3;
    } else if (std::strcmp(argv[i], "--quiet") == 0) {
      quiet = true;
    } else if (argv[i][0] != '-' && model_path == nullptr) {
      model_path = argv[i];
    } else if (argv[i][0] != '-' && inputs_path == nullptr) {
      inputs_path = argv[i];
    } else {
      std::fprintf(stderr, "unknown argument %s\n", argv[i]);
      model_path = nullptr;
      break;
    }
  }
  if (model_path == nullptr) {
    std::fprintf(stderr,
                 "usage: %s MODEL.pte [INPUTS.bin] [--quiet] [--write OUT.bin] [--expect REF.bin ATOL RTOL]...\n"
                 "       %s MODEL.bpte [--quiet]\n",
                 argv[0], argv[0]);
    return 2;
  }

  etarm::runner::Runner runner(arena, sizeof arena);
  runner.set_clock(monotonic_ns, 1000, "ns");
  if (is_bundle_file(model_path)) {
    if (inputs_path != nullptr || write_path != nullptr || !expectations.empty()) {
      std::fprintf(stderr,
                   "%s is a bundle: it carries its inputs and expected outputs (no INPUTS.bin, --write, --expect)\n",
                   model_path);
      return 2;
    }
    // operator new aligns to __STDCPP_DEFAULT_NEW_ALIGNMENT__: the 16 bytes the program inside needs.
    static_assert(__STDCPP_DEFAULT_NEW_ALIGNMENT__ >= 16, "the bundle needs 16-byte aligned memory");
    std::vector<char> bundle;
    if (!read_file(model_path, &bundle)) {
      std::printf("FAILED: cannot read %s\n", model_path);
      return 1;
    }
    return etarm::runner::run_bundle(runner, bundle.data(), bundle.size(), quiet);
  }
  auto loader = FileDataLoader::from(model_path);
  if (!loader.ok()) return etarm::runner::report_error("open the .pte", loader.error());
  Error err = runner.load(&loader.get());
  if (err != Error::Ok) return etarm::runner::report_error("load", err);

  std::vector<char> input_bytes;
  if (inputs_path != nullptr && !read_file(inputs_path, &input_bytes)) {
    std::printf("FAILED: cannot read %s\n", inputs_path);
    return 1;
  }
  err = inputs_path != nullptr ? runner.set_inputs(input_bytes.data(), input_bytes.size())
                               : runner.set_inputs(nullptr, 0);
  if (err != Error::Ok) return etarm::runner::report_error("set inputs", err);
  err = runner.execute();
  if (err != Error::Ok) return etarm::runner::report_error("execute", err);
  if (!quiet) runner.print_outputs();
  runner.print_report();

  if (write_path == nullptr && expectations.empty()) return 0;
  std::vector<float> outputs;
  if (!float_outputs(runner.method(), &outputs)) {
    std::printf("FAILED: --write / --expect need every output to be a float tensor\n");
    return 1;
  }
  if (write_path != nullptr) {
    FILE* f = std::fopen(write_path, "wb");
    const bool ok = f != nullptr && std::fwrite(outputs.data(), sizeof(float), outputs.size(), f) == outputs.size();
    if (f != nullptr) std::fclose(f);
    if (!ok) {
      std::printf("FAILED: cannot write %s\n", write_path);
      return 1;
    }
  }
  bool pass = true;
  for (const Expectation& e : expectations) pass = check(outputs, e) && pass;
  std::printf("%s\n", pass ? "PASS" : "FAIL");
  return pass ? 0 : 1;
}
