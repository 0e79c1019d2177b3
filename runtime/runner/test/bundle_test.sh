#!/usr/bin/env bash
# Runs a Linux runner on a bundled program (.bpte) and checks its verdict: exit code 0, PASS,
# and a largest |got - expected| (what the runner prints for test case 0) of at most MAX_DIFF.
#   bundle_test.sh RUNNER BUNDLE.bpte MAX_DIFF
set -uo pipefail
runner=$1 bundle=$2 max_diff=$3
out=$("$runner" "$bundle" 2>&1)
status=$?
echo "$out"
fail() { echo "FAIL: $*"; exit 1; }
[ "$status" = 0 ] || fail "exit code $status"
grep -qx PASS <<<"$out" || fail "no PASS line"
diff=$(sed -n 's/^test case 0: max |got - expected| = \([^,]*\), 0 of [0-9]* values outside tolerance$/\1/p' <<<"$out")
[ -n "$diff" ] || fail "no 'test case 0: max |got - expected| = D, 0 of N values outside tolerance' line"
awk -v diff="$diff" -v max="$max_diff" 'BEGIN { exit !(diff + 0 <= max + 0) }' || fail "max |got - expected| $diff > $max_diff"
echo "PASS: max |got - expected| = $diff <= $max_diff"
