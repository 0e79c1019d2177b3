/*
 * The operating-system hooks picolibc and libstdc++ need on bare metal: sbrk() for malloc
 * over the linker script's heap region, and answers for the calls that have no meaning
 * here.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "cortex_m.h"
#include "etarm/platform.h"

extern char __etarm_heap_start[], __etarm_heap_end[];

static uintptr_t heap_top;

void *sbrk(ptrdiff_t increment) {
  /* Integer arithmetic: the heap bounds are distinct linker symbols, not one C object. */
  const uintptr_t start = (uintptr_t)__etarm_heap_start, end = (uintptr_t)__etarm_heap_end;
  if (heap_top == 0) heap_top = start;
  if ((increment > 0 && (uintptr_t)increment > end - heap_top) ||
      (increment < 0 && (uintptr_t)(-increment) > heap_top - start)) {
    errno = ENOMEM;
    return (void *)-1;
  }
  uintptr_t previous = heap_top;
  heap_top += (uintptr_t)increment;
  return (void *)previous;
}

/* newlib's spelling, for code written against it. */
void *_sbrk(ptrdiff_t increment) { return sbrk(increment); }
