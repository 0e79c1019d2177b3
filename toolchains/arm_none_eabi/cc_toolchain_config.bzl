"""cc toolchain configuration for Debian's arm-none-eabi GCC (picolibc) in the bazelw root.

One configuration per core (and MVE choice): `CORES` holds the compiler flags, BUILD.bazel
instantiates a cc_toolchain + toolchain() per entry, matched by //platforms constraints.

Features (enable/disable with --features=NAME / --features=-NAME or a target's `features`):
  gc_sections     (on)  -ffunction-sections -fdata-sections, and --gc-sections when linking
  size_optimized  (off) -Os instead of the compilation mode's level, also picks picolibc's
                        size-optimised ("space") library variants at link time
  nano            (off) integer-only printf/scanf (picolibc's --printf=i/--scanf=i): the
                        equivalent of newlib's nano.specs
  no_exceptions   (on)  C++ without exceptions
  no_rtti         (on)  C++ without RTTI
Compilation modes: fastbuild -Os, opt -O2 -DNDEBUG, dbg -Og -g3.
"""

load("@rules_cc//cc:cc_toolchain_config_lib.bzl", "feature", "with_feature_set")
load(
    "//toolchains:cc_toolchain_common.bzl",
    "ALL_COMPILE",
    "CXX_COMPILE",
    "LINK",
    "compilation_mode_features",
    "compiler_action_configs",
    "flags",
    "gc_sections_feature",
    "gcc_tool_paths",
    "optimization_feature",
    "target_flags_feature",
    "toolchain_config_info",
)

# Compiler flags per core. The float ABI is hard everywhere (all these cores have an FPU);
# -mcpu implies the FPU and, for M55/M85, MVE with floating point (+nomve drops it).
CORES = {
    "cortex_m4": ["-mcpu=cortex-m4", "-mfpu=fpv4-sp-d16"],
    "cortex_m7": ["-mcpu=cortex-m7", "-mfpu=fpv5-d16"],
    "cortex_m33": ["-mcpu=cortex-m33", "-mfpu=fpv5-sp-d16"],
    "cortex_m55": ["-mcpu=cortex-m55"],
    "cortex_m55_nomve": ["-mcpu=cortex-m55+nomve"],
    "cortex_m85": ["-mcpu=cortex-m85"],
    "cortex_m85_nomve": ["-mcpu=cortex-m85+nomve"],
}

_TOOL_PREFIX = "/usr/bin/arm-none-eabi-"

def _impl(ctx):
    # g++ links: it pulls in libstdc++ and libsupc++ when C++ code needs them. Archiving and
    # stripping keep Bazel's built-in configurations (tool_paths below): they bring the
    # archiver's flags with them.
    action_configs = compiler_action_configs(_TOOL_PREFIX + "gcc", _TOOL_PREFIX + "g++")

    features = [
        target_flags_feature(
            target = ["-mthumb", "-mfloat-abi=hard"] + ctx.attr.cpu_flags,
            compile = [
                "-fno-common",
                # Paths in depfiles as the compiler saw them, so Bazel can match them.
                "-no-canonical-prefixes",
                "-fno-canonical-system-headers",
            ],
            cxx = ["-std=gnu++17"],
        ),
        gc_sections_feature(),
        feature(name = "size_optimized"),
    ] + compilation_mode_features() + [
        optimization_feature(
            levels = {"fastbuild": ["-Os"], "opt": ["-O2"], "dbg": ["-Og"]},
            always = {"opt": ["-DNDEBUG"], "dbg": ["-g3"]},
            unless = "size_optimized",
            # -Os at link time too: picolibc's size-optimised library variants.
            extra = [flags(ALL_COMPILE + LINK, ["-Os"], [with_feature_set(features = ["size_optimized"])])],
        ),
        feature(
            name = "nano",
            flag_sets = [flags(ALL_COMPILE + LINK, ["--printf=i", "--scanf=i"])],
        ),
        feature(
            name = "no_exceptions",
            enabled = True,
            flag_sets = [flags(CXX_COMPILE, ["-fno-exceptions"])],
        ),
        feature(
            name = "no_rtti",
            enabled = True,
            flag_sets = [flags(CXX_COMPILE, ["-fno-rtti"])],
        ),
    ]

    return toolchain_config_info(
        ctx,
        target_system_name = "arm-none-eabi",
        target_cpu = ctx.attr.core,
        libc = "picolibc",
        compiler = "gcc",
        abi_version = "eabi",
        action_configs = action_configs,
        features = features,
        cxx_builtin_include_directories = [
            "/usr/lib/gcc/arm-none-eabi",
            "/usr/arm-none-eabi/include",
        ],
        tool_paths = gcc_tool_paths(_TOOL_PREFIX),
    )

arm_none_eabi_toolchain_config = rule(
    implementation = _impl,
    attrs = {
        "core": attr.string(mandatory = True),
        "cpu_flags": attr.string_list(mandatory = True),
    },
    provides = [CcToolchainConfigInfo],
)
