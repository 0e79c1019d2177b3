// Faults on purpose, one kind per argument: the platform's fault handler must report it
// and exit with ETARM_EXIT_FAULT (the qemu_test rules expect that code and the report).
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etarm/platform.h"

typedef void (*fn_t)(void);

__attribute__((noinline)) static int divide(volatile int a, volatile int b) { return a / b; }

__attribute__((noinline)) static int recurse(int depth) {
  volatile char pad[256];
  pad[0] = (char)depth;
  return recurse(depth + 1) + pad[0];
}

int main(int argc, char **argv) {
  const char *kind = argc > 1 ? argv[1] : "";
  printf("about to fault: %s\n", kind);
  if (strcmp(kind, "undefined") == 0) {
    __asm__ volatile("udf #0");
  } else if (strcmp(kind, "bus") == 0) {
    // Reserved address space on SSE-300 (between the NS peripherals and DDR).
    volatile uint32_t *bad = (volatile uint32_t *)0x5FFF0000u;
    printf("read %lu\n", (unsigned long)*bad);
  } else if (strcmp(kind, "divide") == 0) {
    printf("%d\n", divide(1, 0));
  } else if (strcmp(kind, "stack") == 0) {
    printf("%d\n", recurse(0));
  } else if (strcmp(kind, "jump") == 0) {
    ((fn_t)(uintptr_t)0x40000001u)();  // peripheral space: never executable
  } else if (strcmp(kind, "abort") == 0) {
    abort();
  } else {
    printf("unknown fault kind '%s'\n", kind);
    return 2;
  }
  printf("no fault happened\n");
  return 0;
}
