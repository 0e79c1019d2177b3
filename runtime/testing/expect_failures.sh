#!/usr/bin/env bash
# Runs a test program whose cases fail on purpose and checks its report: the exit code is
# 1, every TEXT is in the output and no --absent TEXT is.
#   expect_failures.sh PROGRAM [ARG...] -- TEXT... [--absent TEXT]...
set -uo pipefail
program=$1
shift
args=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do args+=("$1"); shift; done
shift
out=${TEST_TMPDIR:-/tmp}/expect_failures.$$
# The program must not write Bazel's XML: its failures are expected.
env -u XML_OUTPUT_FILE -u TESTBRIDGE_TEST_ONLY "$program" ${args[@]+"${args[@]}"} > "$out" 2>&1
status=$?
cat "$out"
fail() { echo "FAIL: $*"; exit 1; }
[ "$status" = 1 ] || fail "exit code $status, expected 1"
while [ $# -gt 0 ]; do
  if [ "$1" = --absent ]; then
    ! grep -q -F -- "$2" "$out" || fail "output has: $2"
    shift 2
  else
    grep -q -F -- "$1" "$out" || fail "output lacks: $1"
    shift
  fi
done
echo PASS
