// C++ on bare metal: static constructors (also with priorities and in function scope),
// new/delete, virtual dispatch, templates and the standard library's containers.
#include <array>
#include <cstdio>
#include <memory>
#include <vector>

#include "etarm/platform.h"

namespace {

int constructed_order[3];
int constructed_count;

struct Recorder {
  explicit Recorder(int id) { constructed_order[constructed_count++] = id; }
};

// Constructed by __libc_init_array before main, the low priority first.
__attribute__((init_priority(200))) Recorder second(2);
__attribute__((init_priority(101))) Recorder first(1);

struct Shape {
  virtual ~Shape() = default;
  virtual int area() const = 0;
};
struct Square : Shape {
  explicit Square(int s) : side(s) {}
  int area() const override { return side * side; }
  int side;
};
struct Rect : Shape {
  Rect(int w, int h) : w(w), h(h) {}
  int area() const override { return w * h; }
  int w, h;
};

int destroyed;
struct Counted {
  ~Counted() { ++destroyed; }
};

int &lazy() {
  static int value = constructed_count * 10;  // function-local static, initialised once
  return value;
}

}  // namespace

int main() {
  int failures = 0;
  auto check = [&](bool ok, const char *what) {
    if (!ok) {
      std::printf("CHECK failed: %s\n", what);
      ++failures;
    }
  };

  check(constructed_count == 2, "two static constructors ran");
  check(constructed_order[0] == 1 && constructed_order[1] == 2, "init_priority order");
  check(lazy() == 20 && (lazy() = 5, lazy() == 5), "function-local static");

  std::vector<std::unique_ptr<Shape>> shapes;
  shapes.push_back(std::make_unique<Square>(3));
  shapes.push_back(std::make_unique<Rect>(2, 5));
  int total = 0;
  for (const auto &s : shapes) total += s->area();
  check(total == 19, "virtual calls");

  {
    Counted *many = new Counted[4];
    delete[] many;
  }
  check(destroyed == 4, "new[]/delete[] run destructors");

  std::array<int, 4> values{4, 3, 2, 1};
  std::vector<int> copy(values.begin(), values.end());
  copy.resize(1000, 7);
  check(copy[0] == 4 && copy[999] == 7, "std::vector growth");

  std::printf("C++ on %s: %s\n", etarm_board_name(), failures ? "FAILED" : "PASSED");
  return failures;
}
