// C++ on bare metal: static constructors (also with priorities and in function scope),
// new/delete, virtual dispatch, templates and the standard library's containers.
#include <array>
#include <cstdio>
#include <memory>
#include <vector>

#include "etarm/platform.h"
#include "runtime/testing/test.h"

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

int& lazy() {
  static int value = constructed_count * 10;  // function-local static, initialised once
  return value;
}

TEST(StaticInitialisation, PrioritiesInOrder) {
  std::printf("C++ on %s\n", etarm_board_name());
  EXPECT_EQ(constructed_count, 2);
  EXPECT_EQ(constructed_order[0], 1);
  EXPECT_EQ(constructed_order[1], 2);
}

TEST(StaticInitialisation, FunctionLocalStatic) {
  EXPECT_EQ(lazy(), 20);
  lazy() = 5;
  EXPECT_EQ(lazy(), 5);
}

TEST(Objects, VirtualCalls) {
  std::vector<std::unique_ptr<Shape>> shapes;
  shapes.push_back(std::make_unique<Square>(3));
  shapes.push_back(std::make_unique<Rect>(2, 5));
  int total = 0;
  for (const auto& s : shapes) total += s->area();
  EXPECT_EQ(total, 19);
}

TEST(Objects, ArrayNewDeleteRunDestructors) {
  Counted* many = new Counted[4];
  delete[] many;
  EXPECT_EQ(destroyed, 4);
}

TEST(Containers, VectorGrowth) {
  std::array<int, 4> values{4, 3, 2, 1};
  std::vector<int> copy(values.begin(), values.end());
  copy.resize(1000, 7);
  EXPECT_EQ(copy[0], 4);
  EXPECT_EQ(copy[999], 7);
}

}  // namespace
