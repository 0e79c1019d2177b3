/*
 * A loop of a known instruction count, timed with etarm_cycles() like the runner times an
 * inference: //benchmarks:footprint runs it under the same QEMU -icount setting and checks
 * that its cycles -> instructions conversion gives the instructions the loop executes.
 */
#include <inttypes.h>
#include <stdio.h>

#include "etarm/platform.h"

#define ITERATIONS 1000000u
/* subs + bne per iteration, plus the mov that loads the counter. */
#define INSTRUCTIONS (2u * ITERATIONS + 1u)

int main(void) {
  uint64_t start = etarm_cycles();
  uint32_t counter = ITERATIONS;
  __asm__ volatile(
      "   mov %0, %1\n"
      "1: subs %0, %0, #1\n"
      "   bne 1b\n"
      : "=&r"(counter)
      : "r"(counter)
      : "cc");
  uint64_t cycles = etarm_cycles() - start;
  printf("calibration: %" PRIu32 " instructions in %" PRIu64 " cycles at %" PRIu32 " Hz\n", (uint32_t)INSTRUCTIONS,
         cycles, etarm_cpu_hz());
  return 0;
}
