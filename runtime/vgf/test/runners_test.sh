#!/usr/bin/env bash
# The VGF runners on one program must give the same outputs:
#   genuine   runner_vgf: the genuine prebuilt ExecuTorch runtime (host), the reference
#   core      runner_vgf_core: //runtime/core with the VGF delegate (host)
#   aarch64   runner_vgf_aarch64: the same for aarch64 Linux with glibc, under qemu-aarch64
#             with the root's arm64 Vulkan loader and lavapipe and the aarch64 ML emulation
#             layers: what a Vulkan ML device without native VK_ARM_* support runs
# All three run the graph on lavapipe through the emulation layers (the host runners with the
# environment the test sets). Each must match the genuine outputs within TOL, and the genuine
# outputs torch's within TORCH_TOL.
#
# usage: runners_test.sh GENUINE CORE AARCH64 AARCH64_LAYERS MODEL.pte INPUTS.bin TORCH.bin
#                        TOL TORCH_TOL
set -euo pipefail
genuine=$1 core=$2 aarch64=$3 aarch64_layers=$4 pte=$5 inputs=$6 torch_out=$7 tol=$8 torch_tol=$9
tmp=${TEST_TMPDIR:-$(mktemp -d)}
out=$tmp/genuine_outputs.bin

# run NAME COMMAND...
source runtime/testing/run_logged.sh

run genuine "$genuine" "$pte" "$inputs" --write "$out" --expect "$torch_out" "$torch_tol" "$torch_tol"
run core "$core" "$pte" "$inputs" --expect "$out" "$tol" "$tol"
# qemu-aarch64 finds the arm64 dynamic linker and libraries in the root's multiarch paths.
run aarch64 env VK_LAYER_PATH="$aarch64_layers" qemu-aarch64 "$aarch64" "$pte" "$inputs" \
  --expect "$out" "$tol" "$tol"
grep -q "VgfBackend: .*llvmpipe" "$tmp/aarch64.log" || { echo "FAIL: the aarch64 runner did not run on lavapipe"; exit 1; }
echo PASS
