#!/bin/sh
# Runs `zig <command>` for Bazel's actions; zig-cc, zig-c++ and zig-ar call it with the
# command. cc_toolchain_config.bzl sets ETARM_ZIG (zig's path in the execution root) and
# ZIG_LIB_DIR (its lib/, also relative, so depfiles name the declared header inputs).
#
# zig's cache (musl, libc++, compiler-rt, built once: minutes) lives beside the output
# base, in <output_user_root>/zig-cache, which bazelw makes writable inside the sandbox.
# Without it (plain bazel, another sandbox) each action starts from a cold cache in its
# temporary directory.
command=$1
shift
here=$(pwd -P)
output_base=${here%%/execroot/*}
output_base=${output_base%%/sandbox/*}
cache=$(dirname "$output_base")/zig-cache
if [ ! -d "$cache" ] || [ ! -w "$cache" ]; then
  cache=${TMPDIR:-/tmp}/etarm-zig-cache
  mkdir -p "$cache"
fi
ZIG_GLOBAL_CACHE_DIR=$cache
ZIG_LOCAL_CACHE_DIR=$cache
export ZIG_GLOBAL_CACHE_DIR ZIG_LOCAL_CACHE_DIR
exec "$ETARM_ZIG" "$command" "$@"
