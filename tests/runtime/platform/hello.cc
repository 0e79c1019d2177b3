// Bare-metal hello on every board: console, argv, .data/.bss set-up, heap, TLS errno,
// cycle counter and the special sections, as TEST cases (runtime/testing).
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "etarm/platform.h"
#include "runtime/testing/test.h"

namespace {

int zero_initialised;
int initialised = 42;
const char model_blob[] ETARM_SECTION_MODEL = "model bytes";
unsigned char arena[64 * 1024] ETARM_SECTION_ARENA;
// A quarter of the smallest bulk region (MPS2 AN505's 1 MiB), which also holds the model and the heap.
unsigned char bulk[256 * 1024] ETARM_SECTION_DDR_BSS;
int fast_counter ETARM_SECTION_FAST_DATA = 7;

ETARM_SECTION_FAST_CODE int twice(int x) {
  return 2 * x;
}

TEST(Console, HelloAndArguments) {
  std::printf("Hello from %s (%lu Hz)\n", etarm_board_name(), static_cast<unsigned long>(etarm_cpu_hz()));
  for (int i = 0; i < etarm::testing::arg_count(); ++i) {
    std::printf("argv[%d] = %s\n", i + 1, etarm::testing::arg(i));
  }
  const char direct[] = "etarm_console_write works\n";
  etarm_console_write(direct, sizeof direct - 1);
}

TEST(Memory, DataAndBssInitialised) {
  EXPECT_EQ(zero_initialised, 0);
  EXPECT_EQ(initialised, 42);
  EXPECT_EQ(fast_counter, 7);
}

TEST(Memory, SpecialSections) {
  EXPECT_STREQ(model_blob, "model bytes");
  EXPECT_EQ(twice(21), 42);
  size_t nonzero = 0;
  for (unsigned char b : arena) nonzero += b != 0;
  for (size_t i = 0; i < sizeof bulk; i += 4096) nonzero += bulk[i] != 0;
  EXPECT_EQ(nonzero, 0u);
  arena[0] = bulk[0] = 1;
}

TEST(Heap, MallocAndExhaustion) {
  // Results go through volatile pointers: GCC may otherwise drop a malloc whose result is
  // only tested, and assume it succeeded.
  char* volatile block = static_cast<char*>(std::malloc(512 * 1024));
  ASSERT_NE(block, nullptr);
  std::memset(block, 0x5a, 512 * 1024);
  EXPECT_EQ(block[512 * 1024 - 1], 0x5a);
  std::free(block);
  errno = 0;
  void* volatile huge = std::malloc(static_cast<size_t>(1) << 30);  // more than the heap
  EXPECT_EQ(huge, nullptr);
  EXPECT_EQ(errno, ENOMEM);
}

// errno is thread-local in picolibc: it must sit in the TLS block start-up set up.
extern "C" char __etarm_tls_start[];

TEST(Tls, ErrnoInTheTlsBlock) {
  const uintptr_t address = reinterpret_cast<uintptr_t>(&errno);
  const uintptr_t tls = reinterpret_cast<uintptr_t>(__etarm_tls_start);
  EXPECT_GE(address, tls);
  EXPECT_LT(address, tls + 64);
}

TEST(Cycles, CountAndStayMonotonic) {
  const uint64_t start = etarm_cycles();
  volatile float acc = 1.0f;
  for (int i = 0; i < 20000; ++i) acc = acc * 1.0001f + 0.5f;
  const uint64_t cycles = etarm_cycles() - start;
  std::printf("20000 multiply-adds: %llu cycles (%s), %llu us since reset\n", static_cast<unsigned long long>(cycles),
              etarm_cycles_exact() ? "DWT" : "SysTick", static_cast<unsigned long long>(etarm_time_us()));
  EXPECT_GT(cycles, 0u);
  // Monotonic across counter wrap-arounds (SysTick wraps every 2^24 cycles): read it back to
  // back for 2^25 cycles (about 1 s at 32 MHz).
  uint64_t previous = etarm_cycles();
  const uint64_t until = previous + (static_cast<uint64_t>(1) << 25);
  int backwards = 0;
  for (long reads = 0; previous < until && reads < 100000000; ++reads) {
    const uint64_t now = etarm_cycles();
    backwards += now < previous;
    previous = now;
  }
  EXPECT_EQ(backwards, 0);
  EXPECT_GE(previous, until);
}

}  // namespace
