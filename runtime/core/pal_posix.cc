// Platform functions for Linux hosts (and aarch64-linux): stderr logging, a monotonic
// clock in nanoseconds, malloc. Strong definitions: they replace pal_default.cc.
#include <time.h>

#include <cstdio>
#include <cstdlib>

#include <executorch/runtime/platform/platform.h>

extern "C" {

void et_pal_init(void) {}

void et_pal_abort(void) {
  std::abort();
}

et_timestamp_t et_pal_current_ticks(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<et_timestamp_t>(ts.tv_sec) * 1000000000ull + ts.tv_nsec;
}

et_tick_ratio_t et_pal_ticks_to_ns_multiplier(void) {
  return {1, 1};
}

void et_pal_emit_log_message(
    et_timestamp_t timestamp,
    et_pal_log_level_t level,
    const char* filename,
    const char* function,
    size_t line,
    const char* message,
    size_t length) {
  (void)function;
  std::fprintf(stderr, "%c %llu.%06llu %s:%zu] %.*s\n", static_cast<char>(level),
      static_cast<unsigned long long>(timestamp / 1000000000ull),
      static_cast<unsigned long long>(timestamp / 1000ull % 1000000ull), filename, line,
      static_cast<int>(length), message);
}

void* et_pal_allocate(size_t size) {
  return std::malloc(size);
}

void et_pal_free(void* ptr) {
  std::free(ptr);
}

} // extern "C"
