// Bare-metal hello: console, argv, .data/.bss set-up, heap, TLS errno, cycle counter and
// the special sections. Exits 0 only if every check holds.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etarm/platform.h"

static int zero_initialised;
static int initialised = 42;
static const char model_blob[] ETARM_SECTION_MODEL = "model bytes";
static unsigned char arena[64 * 1024] ETARM_SECTION_ARENA;
static unsigned char bulk[1024 * 1024] ETARM_SECTION_DDR_BSS;
static int fast_counter ETARM_SECTION_FAST_DATA = 7;

static int failures;
#define CHECK(cond)                                       \
  do {                                                    \
    if (!(cond)) {                                        \
      printf("CHECK failed: %s (line %d)\n", #cond, __LINE__); \
      ++failures;                                         \
    }                                                     \
  } while (0)

ETARM_SECTION_FAST_CODE static int twice(int x) { return 2 * x; }

int main(int argc, char **argv) {
  printf("Hello from %s (%lu Hz)\n", etarm_board_name(), (unsigned long)etarm_cpu_hz());
  for (int i = 0; i < argc; ++i) printf("argv[%d] = %s\n", i, argv[i]);

  CHECK(zero_initialised == 0);
  CHECK(initialised == 42);
  CHECK(fast_counter == 7);
  CHECK(strcmp(model_blob, "model bytes") == 0);
  CHECK(twice(21) == 42);
  for (size_t i = 0; i < sizeof arena; ++i) CHECK(arena[i] == 0);
  for (size_t i = 0; i < sizeof bulk; i += 4096) CHECK(bulk[i] == 0);
  arena[0] = bulk[0] = 1;

  // Results go through volatile pointers: GCC may otherwise drop a malloc whose result is
  // only tested, and assume it succeeded.
  char *volatile block = malloc(512 * 1024);
  CHECK(block != NULL);
  memset(block, 0x5a, 512 * 1024);
  CHECK(block[512 * 1024 - 1] == 0x5a);
  free(block);
  errno = 0;
  void *volatile huge = malloc((size_t)1 << 30);  // more than the heap
  CHECK(huge == NULL);
  CHECK(errno == ENOMEM);
  // errno is thread-local in picolibc: it must sit in the TLS block start-up set up.
  extern char __etarm_tls_start[];
  CHECK((char *)&errno >= __etarm_tls_start && (char *)&errno < __etarm_tls_start + 64);

  uint64_t start = etarm_cycles();
  volatile float acc = 1.0f;
  for (int i = 0; i < 20000; ++i) acc = acc * 1.0001f + 0.5f;
  uint64_t cycles = etarm_cycles() - start;
  printf("20000 multiply-adds: %llu cycles (%s), %llu us since reset\n",
         (unsigned long long)cycles, etarm_cycles_exact() ? "DWT" : "SysTick",
         (unsigned long long)etarm_time_us());
  // Monotonic across counter wrap-arounds (SysTick wraps every 2^24 cycles): read it
  // back to back for 2^25 cycles (about 1 s at 32 MHz).
  uint64_t previous = etarm_cycles();
  const uint64_t until = previous + ((uint64_t)1 << 25);
  int backwards = 0;
  for (long reads = 0; previous < until && reads < 100000000; ++reads) {
    uint64_t now = etarm_cycles();
    backwards += now < previous;
    previous = now;
  }
  CHECK(backwards == 0);
  CHECK(previous > start);

  const char direct[] = "etarm_console_write works\n";
  etarm_console_write(direct, sizeof direct - 1);
  printf("%s\n", failures ? "FAILED" : "PASSED");
  return failures ? 1 : 0;
}
