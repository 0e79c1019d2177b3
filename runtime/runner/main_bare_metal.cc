// The runner on a bare-metal board: runs the .pte that etarm_firmware() embedded
// (etarm/model.h) on the inputs embedded beside it (etarm_firmware(inputs = ...)), or on
// ones when the image has none. Built with ETARM_RUNNER_BUNDLE (:bare_metal_bundle_main,
// what etarm_firmware(bundle = ...) links), it also runs an embedded BundledProgram (.bpte):
// every test case, checked against its expected outputs (bundled_check.h); images without
// bundles do not carry that code.
// Arguments (from the simulator's semihosting command line):
//   --quiet   do not print the output values
// Exit code: 0, or 1 on any runtime Error (its name is printed) or a bundle's mismatch.
#include <cstdio>
#include <cstring>

#include <executorch/extension/data_loader/buffer_data_loader.h>

#include "etarm/model.h"
#include "etarm/platform.h"
#include "runtime/runner/bundled_program.h"
#include "runtime/runner/runner.h"
#if ETARM_RUNNER_BUNDLE
#include "runtime/runner/bundled_check.h"
#endif

#ifndef ETARM_RUNNER_ARENA_BYTES
#define ETARM_RUNNER_ARENA_BYTES (2u << 20)
#endif

using executorch::extension::BufferDataLoader;
using executorch::runtime::Error;

namespace {

// In the board's arena region (internal SRAM on Corstone-300, reachable by an NPU).
ETARM_SECTION_ARENA uint8_t arena[ETARM_RUNNER_ARENA_BYTES];

}  // namespace

int main(int argc, char** argv) {
  bool quiet = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quiet") == 0) {
      quiet = true;
    } else {
      std::printf("usage: %s [--quiet]\n", argv[0]);
      return 2;
    }
  }
  std::printf("runner: %s, model %lu bytes at %p\n", etarm_board_name(), (unsigned long)etarm_model_size,
              static_cast<const void*>(etarm_model_data));

  etarm::runner::Runner runner(arena, sizeof arena);
  runner.set_clock(etarm_cycles, etarm_cpu_hz() / 1000000u,
                   etarm_cycles_exact() ? "cycles" : "cycles (SysTick estimate)");
  if (etarm::runner::is_bundled_program(etarm_model_data, etarm_model_size)) {
#if ETARM_RUNNER_BUNDLE
    return etarm::runner::run_bundle(runner, etarm_model_data, etarm_model_size, quiet);
#else
    std::printf("runner: a .bpte needs the bundle runner: etarm_firmware(bundle = ...)\n");
    return etarm::runner::report_error("load", Error::NotSupported);
#endif
  }
  BufferDataLoader loader(etarm_model_data, etarm_model_size);
  Error err = runner.load(&loader);
  if (err != Error::Ok) return etarm::runner::report_error("load", err);

  const bool embedded = &etarm_model_inputs_size != nullptr;
  std::printf("inputs: %s\n", embedded ? "embedded" : "ones");
  err = embedded ? runner.set_inputs(etarm_model_inputs, etarm_model_inputs_size) : runner.set_inputs(nullptr, 0);
  if (err != Error::Ok) return etarm::runner::report_error("set inputs", err);
  err = runner.execute();
  if (err != Error::Ok) return etarm::runner::report_error("execute", err);
  if (!quiet) runner.print_outputs();
  runner.print_report();
  std::printf("runner: done\n");
  return 0;
}
