// ExecuTorch's platform abstraction (executorch/runtime/platform/platform.h) on etarm's
// bare-metal boards: logs to the semihosting console, ticks from etarm_cycles(), memory
// from malloc. Strong definitions: they replace runtime/core's weak defaults
// (runtime/core/pal_default.cc) in any image that links //runtime/platform:executorch_pal.
#include <executorch/runtime/platform/platform.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etarm/platform.h"

extern "C" {

void et_pal_init(void) {}

void et_pal_abort(void) {
  static const char message[] = "[etarm] ExecuTorch aborted\n";
  etarm_console_write(message, sizeof message - 1);
  etarm_exit(134);  // what abort() exits with
}

et_timestamp_t et_pal_current_ticks(void) { return etarm_cycles(); }

// One tick is one CPU cycle: 1e9 / f ns.
et_tick_ratio_t et_pal_ticks_to_ns_multiplier(void) { return {1000000000u, etarm_cpu_hz()}; }

// "E 12.345678 executorch:method.cpp:123] message" (seconds since reset at the nominal
// clock, the file without its directories).
void et_pal_emit_log_message(et_timestamp_t timestamp, et_pal_log_level_t level, const char *filename,
                             const char *function, size_t line, const char *message, size_t length) {
  (void)function;
  const char *base = filename ? strrchr(filename, '/') : NULL;
  base = base ? base + 1 : (filename ? filename : "?");
  uint64_t us = timestamp / (etarm_cpu_hz() / 1000000u);
  char prefix[160];
  int n = snprintf(prefix, sizeof prefix, "%c %lu.%06lu executorch:%s:%lu] ", (char)level,
                   (unsigned long)(us / 1000000u), (unsigned long)(us % 1000000u), base, (unsigned long)line);
  if (n < 0) n = 0;
  if ((size_t)n >= sizeof prefix) n = sizeof prefix - 1;
  etarm_console_write(prefix, (size_t)n);
  etarm_console_write(message, length);
  if (length == 0 || message[length - 1] != '\n') etarm_console_write("\n", 1);
}

void *et_pal_allocate(size_t size) { return malloc(size); }

void et_pal_free(void *ptr) { free(ptr); }

}  // extern "C"
