#!/usr/bin/env bash
# The arm-none-eabi stamp (@arm_none_eabi_installed//:stamp, what the toolchain's actions
# depend on) names the compiler that is installed now.
set -euo pipefail
stamp=$1
cat "$stamp"
installed=$(arm-none-eabi-gcc -dumpfullversion)
grep -q -x "gcc $installed" "$stamp" || { echo "FAIL: the stamp does not name gcc $installed"; exit 1; }
version=$(dpkg-query -W -f='${Version}' gcc-arm-none-eabi)
grep -q -x "gcc-arm-none-eabi $version" "$stamp" || { echo "FAIL: the stamp does not name gcc-arm-none-eabi $version"; exit 1; }
echo PASS
