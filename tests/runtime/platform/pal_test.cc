// //runtime/platform:executorch_pal: ExecuTorch's et_pal_* functions on the board.
#include <executorch/runtime/platform/platform.h>

#include <cstring>

#include "runtime/testing/test.h"

namespace {

TEST(Pal, TicksAreCpuCycles) {
  et_pal_init();
  const et_timestamp_t first = et_pal_current_ticks();
  volatile int spin = 0;
  for (int i = 0; i < 100000; ++i) spin = spin + i;
  EXPECT_GT(et_pal_current_ticks(), first);
  const et_tick_ratio_t ratio = et_pal_ticks_to_ns_multiplier();
  EXPECT_NE(ratio.denominator, 0u);
  EXPECT_EQ(ratio.numerator, 1000000000u);
}

// The log line's format is checked by the qemu_test's expect_output.
TEST(Pal, LogMessage) {
  const char message[] = "hello from the PAL";
  et_pal_emit_log_message(et_pal_current_ticks(), kInfo, "some/dir/file.cpp", "main", 42, message,
                          std::strlen(message));
}

TEST(Pal, Allocate) {
  void* p = et_pal_allocate(1000);
  ASSERT_NE(p, nullptr);
  std::memset(p, 1, 1000);
  et_pal_free(p);
}

}  // namespace
