// Runs a BundledProgram (.bpte) on a Runner: loads the program inside it, runs every test case
// of "forward" with its inputs and compares the outputs with the expected ones, within the
// bundle's tolerance for float outputs (|got - expected| <= atol + rtol * |expected|) and
// exactly for integer and bool outputs. Prints (what tests parse):
//   bundle: <n> test case(s) of forward, program <bytes> bytes, atol <a> rtol <r> (<where from>)
//   test case <i>: ...the outputs (unless quiet), time and memory as Runner prints them...
//   test case <i>: max |got - expected| = <d>, <k> of <m> values outside tolerance
//   PASS | FAIL
#ifndef ETARM_RUNTIME_RUNNER_BUNDLED_CHECK_H_
#define ETARM_RUNTIME_RUNNER_BUNDLED_CHECK_H_

#include <cstddef>

#include "runtime/runner/runner.h"

namespace etarm {
namespace runner {

// `runner` is fresh (nothing loaded); `data` (the .bpte, 16-byte aligned) outlives it.
// Returns the exit code: 0 when every value is within tolerance, 1 on a mismatch or an Error
// (printed as "FAILED: <step>: <Error>").
int run_bundle(Runner& runner, const void* data, size_t size, bool quiet);

}  // namespace runner
}  // namespace etarm

#endif  // ETARM_RUNTIME_RUNNER_BUNDLED_CHECK_H_
