// aarch64 Linux, built by both aarch64 toolchains (musl through zig with libc++, glibc
// through GCC with libstdc++) and run under qemu-aarch64: C++17 containers and strings,
// static initialisation, virtual dispatch, exceptions, a file round trip; TEST cases on
// runtime/testing (the framework itself needs no exceptions, this program uses them).
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>

#include "runtime/testing/test.h"

namespace {

#if defined(__GLIBC__)
constexpr const char *kLibc = "gnu";
#else
constexpr const char *kLibc = "musl";
#endif

struct Base {
  virtual ~Base() = default;
  virtual std::string name() const = 0;
};
struct Derived : Base {
  std::string name() const override { return "derived"; }
};

int initialised_before_main = [] { return 42; }();

TEST(Aarch64Linux, Arguments) {
  ASSERT_EQ(etarm::testing::arg_count(), 2);
  EXPECT_EQ(std::string(etarm::testing::arg(0)), "alpha");
  EXPECT_EQ(std::string(etarm::testing::arg(1)), "beta");
}

TEST(Aarch64Linux, StaticInitialisationAndVirtualCalls) {
  EXPECT_EQ(initialised_before_main, 42);
  std::unique_ptr<Base> b = std::make_unique<Derived>();
  EXPECT_EQ(b->name(), "derived");
  std::printf("hello from aarch64-linux-%s (%s)\n", kLibc, sizeof(void *) == 8 ? "64-bit" : "32-bit");
  EXPECT_EQ(sizeof(void *), 8u);
}

TEST(Aarch64Linux, Exceptions) {
  std::string what;
  try {
    throw std::runtime_error("thrown");
  } catch (const std::exception &e) {
    what = e.what();
  }
  EXPECT_EQ(what, "thrown");
}

TEST(Aarch64Linux, FileRoundTrip) {
  const char *tmp = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(tmp ? tmp : "/tmp") + "/etarm_aarch64_test.txt";
  { std::ofstream(path) << "round trip"; }
  std::string back;
  std::getline(std::ifstream(path), back);
  EXPECT_EQ(back, "round trip");
}

}  // namespace

