#!/usr/bin/env bash
# Runs a program and checks what it reports: its exit code (--exit-code, default 0), every
# TEXT in its output and no --absent TEXT. For sh_tests of programs whose test cases fail
# on purpose (exit code 1: the framework's and the harness's failure reports) and of
# programs that print what they did.
#   expect_output.sh [--exit-code N] PROGRAM [ARG...] -- TEXT... [--absent TEXT]...
set -uo pipefail
want_status=0
if [ "${1:-}" = --exit-code ]; then want_status=$2; shift 2; fi
command=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do command+=("$1"); shift; done
shift
out=${TEST_TMPDIR:-/tmp}/expect_output.$$
# The program must not write Bazel's XML for this test: failures may be expected.
env -u XML_OUTPUT_FILE -u TESTBRIDGE_TEST_ONLY "${command[@]}" > "$out" 2>&1
status=$?
cat "$out"
fail() { echo "FAIL: $*"; exit 1; }
[ "$status" = "$want_status" ] || fail "exit code $status, expected $want_status"
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
