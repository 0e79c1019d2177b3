// Weak default platform functions for a freestanding target: no output, no clock, no
// heap. A platform port (runtime/platform/corstone300, or :pal_posix for Linux hosts)
// replaces any of them with strong definitions. Kept alone in this file so that an
// archive member with strong definitions always wins at link time.
#include <executorch/runtime/platform/platform.h>

extern "C" {

__attribute__((weak)) void et_pal_init(void) {}

__attribute__((weak)) void et_pal_abort(void) {
  __builtin_trap();
}

__attribute__((weak)) et_timestamp_t et_pal_current_ticks(void) {
  return 0;
}

__attribute__((weak)) et_tick_ratio_t et_pal_ticks_to_ns_multiplier(void) {
  return {1, 1};
}

__attribute__((weak)) void et_pal_emit_log_message(
    et_timestamp_t, et_pal_log_level_t, const char*, const char*, size_t, const char*, size_t) {}

__attribute__((weak)) void* et_pal_allocate(size_t) {
  return nullptr;
}

__attribute__((weak)) void et_pal_free(void*) {}

} // extern "C"
