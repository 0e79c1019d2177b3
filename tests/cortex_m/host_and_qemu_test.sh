#!/usr/bin/env bash
# Runs one bundled program on the Linux runner with the cortex_m kernels and as a board image in
# QEMU (default the Corstone-300, mps3-an547): both must pass the bundle's check (within one
# quantization step of the PT2E model) and print the same outputs and differences.
#   host_and_qemu_test.sh RUNNER BUNDLE.bpte FIRMWARE.elf [QEMU_MACHINE]
set -uo pipefail
runner=$1 bundle=$2 firmware=$3 machine=${4:-mps3-an547}
fail() { echo "FAIL: $*"; exit 1; }

host=$("$runner" "$bundle" 2>&1)
host_status=$?
echo "--- host runner"; echo "$host"
board=$(timeout 300 qemu-system-arm -M "$machine" -nographic -monitor none -serial none \
  -semihosting-config enable=on,target=native -kernel "$firmware" 2>&1)
board_status=$?
echo "--- $machine in QEMU"; echo "$board"

[ "$host_status" = 0 ] || fail "host runner: exit code $host_status"
[ "$board_status" = 0 ] || fail "QEMU: exit code $board_status"
grep -qx PASS <<<"$host" || fail "host runner: no PASS line"
grep -qx PASS <<<"$board" || fail "QEMU: no PASS line"
# The outputs (out<i>: values, %.9g) and the per-case verdicts, from both.
results() { grep -E '^(out[0-9]+:|output [0-9]+:|test case [0-9]+:)' <<<"$1" | tr -d '\r'; }
[ -n "$(results "$host")" ] || fail "host runner printed no outputs"
diff <(results "$host") <(results "$board") || fail "the host and QEMU outputs differ"
echo "PASS: $(results "$host" | wc -l) output lines equal on the host and in QEMU"
