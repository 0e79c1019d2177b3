#!/usr/bin/env bash
# Differential test: runs one .pte on the genuine ExecuTorch runtime and on //runtime/core
# (the same runner source built against each) and requires the same outputs; both are
# also compared with torch's outputs.
# usage: differential_test.sh GENUINE_RUNNER CORE_RUNNER MODEL.pte INPUTS.bin TORCH.bin TORCH_ATOL TORCH_RTOL
set -euo pipefail
genuine=$1 core=$2 pte=$3 inputs=$4 torch_out=$5 torch_atol=$6 torch_rtol=$7
out=${TEST_TMPDIR:-$(mktemp -d)}/genuine_outputs.bin
echo "--- genuine runtime"
"$genuine" "$pte" "$inputs" --write "$out" --expect "$torch_out" "$torch_atol" "$torch_rtol"
echo "--- runtime/core"
"$core" "$pte" "$inputs" --expect "$out" 1e-5 1e-5 --expect "$torch_out" "$torch_atol" "$torch_rtol"
