#!/usr/bin/env bash
# The framework's failure reports on the host: every Fails.* case of failing_cases fails
# on purpose (expect_output.sh checks the messages), then the trace order and filters.
set -uo pipefail
expect_output=$1
program=$2
fail() { echo "FAIL: $*"; exit 1; }
"$expect_output" --exit-code 1 "$program" -- \
  "runtime/testing/test/failing_cases.cc:12: Failure" \
  "  EXPECT_EQ(rows * 2, 7)" \
  "    rows * 2 = 6" \
  "    7 = 7" \
  "  EXPECT_LT(4u, -1)" \
  "  EXPECT_NEAR(1.0f, 1.25, 0.125)" \
  "    |difference| = 0.25" \
  '    "abc" = "abc"' \
  '    "abd" = "abd"' \
  "  ASSERT_TRUE(1 + 1 == 3)" \
  "  custom message here" \
  "failing_cases.cc:34: element 7" \
  "failing_cases.cc:33: shape 2x5" \
  "[  FAILED  ] Fails.AssertStopsTheCase" \
  "[       OK ] Passes.Fine" \
  "[==========] 7 of 7 test cases ran, 1 passed, 6 failed" \
  "TESTS FAILED" \
  --absent "after the failed ASSERT_TRUE" || exit 1

out=${TEST_TMPDIR:-/tmp}/failing_cases.out
env -u XML_OUTPUT_FILE "$program" > "$out" 2>&1
# Innermost trace first.
[ "$(grep -n 'element 7' "$out" | cut -d: -f1)" -lt "$(grep -n 'shape 2x5' "$out" | cut -d: -f1)" ] ||
  fail "traces not innermost first"
env -u XML_OUTPUT_FILE "$program" --test_filter='Passes.*:Nothing' > "$out" 2>&1 || fail "the filtered run failed"
grep -q -F "[==========] 1 of 7 test cases ran, 1 passed, 0 failed" "$out" || fail "filter: $(cat "$out")"
"$expect_output" --exit-code 1 "$program" --test_filter=Nothing -- "NO TESTS RAN" || exit 1
echo PASS
