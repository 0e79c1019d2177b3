// aarch64-linux-musl through zig, run under qemu-aarch64: C++17, libc++ containers and
// strings, static initialisation, virtual dispatch, exceptions, a file round trip.
#include <cstdio>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct Base {
  virtual ~Base() = default;
  virtual std::string name() const = 0;
};
struct Derived : Base {
  std::string name() const override { return "derived"; }
};

int initialised_before_main = [] { return 42; }();

}  // namespace

int main(int argc, char **argv) {
  int failures = 0;
  auto check = [&](bool ok, const char *what) {
    if (!ok) {
      std::printf("CHECK failed: %s\n", what);
      ++failures;
    }
  };
  std::vector<std::string> args(argv, argv + argc);
  check(args.size() == 3 && args[1] == "alpha" && args[2] == "beta", "arguments");
  check(initialised_before_main == 42, "static initialisation");
  std::unique_ptr<Base> b = std::make_unique<Derived>();
  check(b->name() == "derived", "virtual call");
  try {
    throw std::runtime_error("thrown");
  } catch (const std::exception &e) {
    check(std::string(e.what()) == "thrown", "exception caught");
  }
  const char *tmp = std::getenv("TEST_TMPDIR");
  std::string path = std::string(tmp ? tmp : "/tmp") + "/etarm_aarch64_test.txt";
  { std::ofstream(path) << "round trip"; }
  std::string back;
  std::getline(std::ifstream(path), back);
  check(back == "round trip", "file I/O");
  std::printf("hello from aarch64-linux-musl (%s): %s\n", sizeof(void *) == 8 ? "64-bit" : "32-bit",
              failures ? "FAILED" : "PASSED");
  return failures;
}
