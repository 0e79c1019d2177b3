// The framework's checks and printers where they must pass; failing_cases.cc (run by
// failing_cases_test.sh and in QEMU) covers the failure messages.
#include <cmath>
#include <cstring>

#include "runtime/testing/test.h"

namespace {

using etarm::testing::internal::describe;

enum class Color : uint8_t { kRed = 3 };

struct Named {
  const char* c_str() const { return "named"; }
};

TEST(Compare, MixedSignednessComparesValues) {
  const int minus_one = -1;
  const unsigned zero = 0;
  EXPECT_LT(minus_one, zero);  // the built-in operator would say -1 > 0u
  EXPECT_NE(minus_one, 0xffffffffu);
  EXPECT_GT(zero, minus_one);
  EXPECT_EQ(static_cast<size_t>(3), 3);
  EXPECT_LE(3, static_cast<size_t>(3));
  EXPECT_GE(static_cast<uint64_t>(1) << 40, 1);
  EXPECT_FALSE(etarm::testing::internal::equal(-1, 0xffffffffu));
  EXPECT_TRUE(etarm::testing::internal::less(-5, 2u));
  EXPECT_FALSE(etarm::testing::internal::less(5u, -2));
}

TEST(Compare, NearAndStrings) {
  EXPECT_NEAR(0.1 + 0.2, 0.3, 1e-12);
  EXPECT_NEAR(INFINITY, INFINITY, 0.0);
  EXPECT_FALSE(etarm::testing::internal::near(NAN, NAN, 1.0));
  EXPECT_FALSE(etarm::testing::internal::near(1.0, 1.5, 0.25));
  char copy[8];
  std::strcpy(copy, "abc");
  EXPECT_STREQ(copy, "abc");  // by content, not address
  EXPECT_TRUE(etarm::testing::internal::same_string(nullptr, nullptr));
  EXPECT_FALSE(etarm::testing::internal::same_string("a", nullptr));
}

TEST(Printer, ShowsValuesByKind) {
  EXPECT_STREQ(describe(true).chars, "true");
  EXPECT_STREQ(describe('A').chars, "'A' (65)");
  EXPECT_STREQ(describe(static_cast<int8_t>(-7)).chars, "-7");
  EXPECT_STREQ(describe(static_cast<uint8_t>(200)).chars, "200");
  EXPECT_STREQ(describe(-12345678901LL).chars, "-12345678901");
  EXPECT_STREQ(describe(0.5f).chars, "0.5");
  EXPECT_STREQ(describe(-0.25).chars, "-0.25");
  EXPECT_STREQ(describe(Color::kRed).chars, "3");
  EXPECT_STREQ(describe("text").chars, "\"text\"");
  EXPECT_STREQ(describe(static_cast<const char*>(nullptr)).chars, "nullptr");
  EXPECT_STREQ(describe(nullptr).chars, "nullptr");
  EXPECT_STREQ(describe(Named()).chars, "\"named\"");
  char long_text[200];
  std::memset(long_text, 'x', sizeof long_text - 1);
  long_text[sizeof long_text - 1] = '\0';
  const auto shown = describe(static_cast<const char*>(long_text));
  EXPECT_LT(std::strlen(shown.chars), sizeof shown.chars);
  EXPECT_TRUE(std::strstr(shown.chars, "\"...") != nullptr);
}

TEST(Trace, NestsAndUnwinds) {
  SCOPED_TRACE("outer %d", 1);
  {
    SCOPED_TRACE("inner %s", "two");
  }
  EXPECT_EQ(etarm::testing::current_failures(), 0);
}

// Positional arguments reach the cases; the framework's own flags do not.
TEST(Arguments, PositionalOnly) {
  ASSERT_EQ(etarm::testing::arg_count(), 2);
  EXPECT_STREQ(etarm::testing::arg(0), "first");
  EXPECT_STREQ(etarm::testing::arg(1), "second");
  EXPECT_EQ(etarm::testing::arg(2), nullptr);
  EXPECT_EQ(etarm::testing::arg(-1), nullptr);
}

}  // namespace
