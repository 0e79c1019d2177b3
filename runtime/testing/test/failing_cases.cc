// Cases that fail on purpose, one way each: failing_cases_test.sh and the QEMU test check
// the messages (place, expression, values, traces), that ASSERT_* stops its case and that
// the program exits 1.
#include <cstdio>

#include "runtime/testing/test.h"

namespace {

TEST(Fails, Eq) {
  const int rows = 3;
  EXPECT_EQ(rows * 2, 7);
}

TEST(Fails, MixedSignLess) {
  EXPECT_LT(4u, -1);
}

TEST(Fails, Near) {
  EXPECT_NEAR(1.0f, 1.25, 0.125);
}

TEST(Fails, Strings) {
  EXPECT_STREQ("abc", "abd");
}

TEST(Fails, AssertStopsTheCase) {
  ASSERT_TRUE(1 + 1 == 3);
  std::printf("after the failed ASSERT_TRUE\n");
}

TEST(Fails, MessageWithTraces) {
  SCOPED_TRACE("shape %dx%d", 2, 5);
  SCOPED_TRACE("element %d", 7);
  ADD_FAILURE("custom message %s", "here");
}

TEST(Passes, Fine) {
  EXPECT_EQ(1, 1);
}

}  // namespace
