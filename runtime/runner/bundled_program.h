// Reader of ExecuTorch BundledProgram files (.bpte, file identifier "BP08"; schema: the
// executorch wheel's devtools/bundled_program/schema/bundled_program_schema.fbs): a program
// plus, per method, test cases (inputs and the outputs they should give). `etarm compile
// --bundleio` writes them (python/etarm/bundleio.py) with one test case for "forward" and the
// tolerance in a second suite, "etarm.tolerance", whose one test case has two Double inputs
// (atol, rtol).
//
// load() verifies the whole flatbuffer (every table, vector and string in bounds, scalar
// vectors aligned, strings terminated) and every value of the suites read here (known dtype,
// data size matching the shape, dim order a permutation) before handing anything out; the
// accessors then read without further checks. A malformed file gives Error::InvalidProgram
// (with a log line saying what is wrong), never a fault. No heap, no exceptions: it runs on the
// genuine host runtime and on //runtime/core alike.
#ifndef ETARM_RUNTIME_RUNNER_BUNDLED_PROGRAM_H_
#define ETARM_RUNTIME_RUNNER_BUNDLED_PROGRAM_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/span.h>

#include "runtime/core/fb.h"

namespace etarm {
namespace runner {

// The method whose test cases the runner runs, and the suite that carries the tolerance.
constexpr const char* kBundledMethod = "forward";
constexpr const char* kToleranceSuite = "etarm.tolerance";

// True when `data` carries a BundledProgram's file identifier (bytes 4..7); says nothing
// about the rest.
inline bool is_bundled_program(const void* data, size_t size) {
  return data != nullptr && size >= 8 && std::memcmp(static_cast<const uint8_t*>(data) + 4, "BP08", 4) == 0;
}

// A tensor of a test case: views into the bundle.
struct BundledTensor {
  executorch::aten::ScalarType scalar_type;
  executorch::runtime::Span<const int32_t> sizes;
  executorch::runtime::Span<const uint8_t> dim_order;  // empty: contiguous
  const uint8_t* data;                                 // aligned to the element size
  size_t numel;
  size_t nbytes;
};

// A value of a test case: a tensor or a scalar.
struct BundledValue {
  enum class Kind : uint8_t { kTensor, kInt, kBool, kDouble };
  Kind kind;
  BundledTensor tensor;  // kTensor
  int64_t int_value;     // kInt
  bool bool_value;       // kBool
  double double_value;   // kDouble
};

// |got - expected| <= atol + rtol * |expected| for float outputs.
struct Tolerance {
  double atol;
  double rtol;
  bool from_bundle;  // false: the bundle has none, these are ExecuTorch's defaults
};

class BundledProgram {
 public:
  // Verifies `data` (the whole .bpte, which must stay alive and unchanged while the result is
  // used; aligned to 16 bytes, as the program inside needs).
  static executorch::runtime::Result<BundledProgram> load(const void* data, size_t size);

  // The ExecuTorch program (.pte bytes) inside the bundle.
  executorch::runtime::Span<const uint8_t> program() const;

  // Test cases of kBundledMethod (0 when the bundle has none).
  size_t num_test_cases() const;
  size_t num_inputs(size_t test_case) const;
  BundledValue input(size_t test_case, size_t index) const;
  size_t num_expected_outputs(size_t test_case) const;
  BundledValue expected_output(size_t test_case, size_t index) const;

  Tolerance tolerance() const;

 private:
  fb::Table root_;
  fb::Vec test_cases_;  // kBundledMethod's
  fb::Vec tolerance_inputs_;
};

}  // namespace runner
}  // namespace etarm

#endif  // ETARM_RUNTIME_RUNNER_BUNDLED_PROGRAM_H_
