#!/usr/bin/env bash
# The framework's failure reports on the host: runs failing_cases (every Fails.* case fails
# on purpose) and checks the exit code, each message and the summary; then a filter.
set -uo pipefail
program=$1
out=${TEST_TMPDIR:-/tmp}/failing_cases.out
# The child must not write Bazel's XML: its failures are expected.
env -u XML_OUTPUT_FILE -u TESTBRIDGE_TEST_ONLY "$program" > "$out" 2>&1
status=$?
cat "$out"
fail() { echo "FAIL: $*"; exit 1; }
[ "$status" = 1 ] || fail "exit code $status, expected 1"
expect() { grep -q -F -- "$1" "$out" || fail "output lacks: $1"; }
expect "runtime/testing/test/failing_cases.cc:12: Failure"
expect "  EXPECT_EQ(rows * 2, 7)"
expect "    rows * 2 = 6"
expect "    7 = 7"
expect "  EXPECT_LT(4u, -1)"
expect "  EXPECT_NEAR(1.0f, 1.25, 0.125)"
expect "    |difference| = 0.25"
expect '    "abc" = "abc"'
expect '    "abd" = "abd"'
expect "  ASSERT_TRUE(1 + 1 == 3)"
expect "  custom message here"
expect "failing_cases.cc:34: element 7"
expect "failing_cases.cc:33: shape 2x5"
expect "[  FAILED  ] Fails.AssertStopsTheCase"
expect "[       OK ] Passes.Fine"
expect "[==========] 7 of 7 test cases ran, 1 passed, 6 failed"
expect "TESTS FAILED"
! grep -q "after the failed ASSERT_TRUE" "$out" || fail "ASSERT_TRUE did not stop its case"
# Innermost trace first.
[ "$(grep -n 'element 7' "$out" | cut -d: -f1)" -lt "$(grep -n 'shape 2x5' "$out" | cut -d: -f1)" ] ||
  fail "traces not innermost first"

env -u XML_OUTPUT_FILE "$program" --test_filter='Passes.*:Nothing' > "$out" 2>&1 || fail "the filtered run failed"
grep -q -F "[==========] 1 of 7 test cases ran, 1 passed, 0 failed" "$out" || fail "filter: $(cat "$out")"
env -u XML_OUTPUT_FILE "$program" --test_filter=Nothing > "$out" 2>&1 && fail "a filter selecting nothing passed"
grep -q "NO TESTS RAN" "$out" || fail "no 'NO TESTS RAN' for an empty selection"
echo PASS
