#!/usr/bin/env bash
# A compiler stamp (//toolchains:installed_compiler.bzl, what a toolchain's actions depend on)
# names the compiler that is installed now.
# usage: compiler_stamp_test.sh STAMP COMPILER PACKAGE
set -euo pipefail
stamp=$1 compiler=$2 package=$3
cat "$stamp"
installed=$("$compiler" -dumpfullversion)
grep -q -x "gcc $installed" "$stamp" || { echo "FAIL: the stamp does not name gcc $installed"; exit 1; }
version=$(dpkg-query -W -f='${Version}' "$package")
grep -q -x "$package $version" "$stamp" || { echo "FAIL: the stamp does not name $package $version"; exit 1; }
echo PASS
