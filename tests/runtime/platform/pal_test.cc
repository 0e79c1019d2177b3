// //runtime/platform:executorch_pal: ExecuTorch's et_pal_* functions on the board.
#include <executorch/runtime/platform/platform.h>

#include <cstdio>
#include <cstring>

int main() {
  int failures = 0;
  auto check = [&](bool ok, const char *what) {
    if (!ok) {
      std::printf("CHECK failed: %s\n", what);
      ++failures;
    }
  };
  et_pal_init();
  et_timestamp_t first = et_pal_current_ticks();
  volatile int spin = 0;
  for (int i = 0; i < 100000; ++i) spin = spin + i;
  et_timestamp_t second = et_pal_current_ticks();
  check(second > first, "ticks advance");
  et_tick_ratio_t ratio = et_pal_ticks_to_ns_multiplier();
  check(ratio.denominator != 0 && ratio.numerator == 1000000000u, "ticks are CPU cycles");
  const char message[] = "hello from the PAL";
  et_pal_emit_log_message(second, kInfo, "some/dir/file.cpp", "main", 42, message, std::strlen(message));
  void *p = et_pal_allocate(1000);
  check(p != nullptr, "et_pal_allocate");
  std::memset(p, 1, 1000);
  et_pal_free(p);
  std::printf("PAL: %s\n", failures ? "FAILED" : "PASSED");
  return failures;
}
