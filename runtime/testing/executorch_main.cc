// main() of test programs on ExecuTorch's runtime (the genuine one or runtime/core):
// initialises the runtime (its PAL: log, clock) before the TEST cases run.
#include <executorch/runtime/platform/runtime.h>

#include "runtime/testing/test.h"

int main(int argc, char** argv) {
  executorch::runtime::runtime_init();
  return etarm::testing::run_all_tests(argc, argv);
}
