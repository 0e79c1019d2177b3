#!/usr/bin/env bash
# Differential test: one .pte on four runtimes must give the same outputs.
#   genuine   the genuine prebuilt ExecuTorch runtime (host x86_64), the reference
#   core      //runtime/core on the host
#   aarch64   //runtime/core on aarch64-linux-musl, under qemu-aarch64
#   m55       //runtime/core in a Corstone-300 firmware image (Cortex-M55), under
#             qemu-system-arm mps3-an547; the image embeds the .pte and the inputs and
#             prints its outputs (%.9g per element), which are compared with the genuine
#             runner's printed outputs
# Every runtime must match the genuine outputs within 1e-5 (abs + rel), and the genuine
# outputs must match torch's within TORCH_ATOL / TORCH_RTOL. The runners are all built from
# //runtime/runner (the same source against each runtime).
#
# usage: differential_test.sh GENUINE CORE CORE_AARCH64 FIRMWARE.elf MODEL.pte INPUTS.bin
#                             TORCH.bin TORCH_ATOL TORCH_RTOL
set -euo pipefail
genuine=$1 core=$2 core_aarch64=$3 firmware=$4 pte=$5 inputs=$6 torch_out=$7 torch_atol=$8 torch_rtol=$9
tol=1e-5
tmp=${TEST_TMPDIR:-$(mktemp -d)}
out=$tmp/genuine_outputs.bin

# The printed output values of a runner's log, one per line.
values() { awk '$1 ~ /^out[0-9]+:$/ { for (i = 2; i <= NF; i++) print $i }' "$1"; }

# The "max |diff|" a runner printed for its comparison with FILE.
max_diff() { grep -a -F "vs $2: max |diff| = " "$1" | sed 's/.*max |diff| = \([^,]*\),.*/\1/'; }

# run NAME COMMAND...
source runtime/testing/run_logged.sh

run genuine "$genuine" "$pte" "$inputs" --write "$out" --expect "$torch_out" "$torch_atol" "$torch_rtol"
run core "$core" "$pte" "$inputs" --expect "$out" "$tol" "$tol" --expect "$torch_out" "$torch_atol" "$torch_rtol"
run aarch64 qemu-aarch64 "$core_aarch64" "$pte" "$inputs" --expect "$out" "$tol" "$tol" \
  --expect "$torch_out" "$torch_atol" "$torch_rtol"
run m55 timeout 240 qemu-system-arm -M mps3-an547 -nographic -monitor none -serial none \
  -semihosting-config enable=on,target=native,arg=runner -kernel "$firmware"

values "$tmp/genuine.log" > "$tmp/genuine.values"
values "$tmp/m55.log" > "$tmp/m55.values"
[ -s "$tmp/genuine.values" ] || { echo "FAIL: the genuine runner printed no output values"; exit 1; }
m55_diff=$(paste "$tmp/m55.values" "$tmp/genuine.values" | awk -v tol="$tol" -v want="$(wc -l < "$tmp/genuine.values")" '
  function abs(x) { return x < 0 ? -x : x }
  NF != 2 { lengths = 1 }
  { d = abs($1 - $2); if (d > worst) worst = d; if (!(d <= tol + tol * abs($2))) bad++ }
  END {
    if (lengths || NR != want) { print "count"; exit }
    printf "%g %d\n", worst, bad
  }')
case "$m55_diff" in
  count) echo "FAIL: m55 printed $(wc -l < "$tmp/m55.values") values, genuine $(wc -l < "$tmp/genuine.values")"; exit 1 ;;
  *" 0") ;;
  *) echo "FAIL: m55 outputs differ from the genuine runtime's: max |diff| = ${m55_diff% *}, ${m55_diff#* } values outside tolerance"; exit 1 ;;
esac

echo "--- max |diff| vs the genuine runtime: core $(max_diff "$tmp/core.log" "$out")," \
  "aarch64 $(max_diff "$tmp/aarch64.log" "$out"), m55 ${m55_diff% *};" \
  "genuine vs torch $(max_diff "$tmp/genuine.log" "$torch_out")"
echo PASS
