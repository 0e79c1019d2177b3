#!/usr/bin/env bash
# Runs a program; it must exit 0 and print every TEXT.
#   expect_output.sh PROGRAM [ARG...] -- TEXT...
set -uo pipefail
command=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do command+=("$1"); shift; done
shift
out=${TEST_TMPDIR:-/tmp}/expect_output.$$
"${command[@]}" > "$out" 2>&1
status=$?
cat "$out"
[ "$status" = 0 ] || { echo "FAIL: exit code $status"; exit 1; }
for want in "$@"; do
  grep -q -F -- "$want" "$out" || { echo "FAIL: output lacks: $want"; exit 1; }
done
echo PASS
