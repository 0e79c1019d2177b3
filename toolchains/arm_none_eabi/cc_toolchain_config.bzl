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

load("@rules_cc//cc:action_names.bzl", "ACTION_NAMES")
load(
    "@rules_cc//cc:cc_toolchain_config_lib.bzl",
    "action_config",
    "feature",
    "flag_group",
    "flag_set",
    "tool",
    "tool_path",
    "with_feature_set",
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

_C_COMPILE = [ACTION_NAMES.c_compile]
_CXX_COMPILE = [
    ACTION_NAMES.cpp_compile,
    ACTION_NAMES.cpp_header_parsing,
    ACTION_NAMES.cpp_module_compile,
    ACTION_NAMES.linkstamp_compile,
]
_ASM = [ACTION_NAMES.assemble, ACTION_NAMES.preprocess_assemble]
_ALL_COMPILE = _C_COMPILE + _CXX_COMPILE + _ASM
_LINK = [ACTION_NAMES.cpp_link_executable]

def _flags(actions, flags, with_features = []):
    return flag_set(actions = actions, flag_groups = [flag_group(flags = flags)], with_features = with_features)

def _impl(ctx):
    target_flags = ["-mthumb", "-mfloat-abi=hard"] + ctx.attr.cpu_flags

    def tools(name):
        return [tool(path = _TOOL_PREFIX + name)]

    action_configs = [
        action_config(action_name = a, enabled = True, tools = tools("gcc"))
        for a in _C_COMPILE + _ASM
    ] + [
        # g++ as the link driver pulls in libstdc++ and libsupc++ when C++ code needs them.
        action_config(action_name = a, enabled = True, tools = tools("g++"))
        for a in _CXX_COMPILE + _LINK
    ]
    # Archiving and stripping keep Bazel's built-in configurations (tool_paths below): they
    # bring the archiver's flags with them.

    features = [
        feature(
            name = "target_flags",
            enabled = True,
            flag_sets = [
                _flags(_ALL_COMPILE + _LINK, target_flags),
                _flags(_ALL_COMPILE, [
                    "-fno-common",
                    "-Wall",
                    # Paths in depfiles as the compiler saw them, so Bazel can match them.
                    "-no-canonical-prefixes",
                    "-fno-canonical-system-headers",
                    # Reproducible outputs.
                    "-Wno-builtin-macro-redefined",
                    "-D__DATE__=\"redacted\"",
                    "-D__TIMESTAMP__=\"redacted\"",
                    "-D__TIME__=\"redacted\"",
                ]),
                _flags(_CXX_COMPILE, ["-std=gnu++17"]),
            ],
        ),
        feature(
            name = "gc_sections",
            enabled = True,
            flag_sets = [
                _flags(_ALL_COMPILE, ["-ffunction-sections", "-fdata-sections"]),
                _flags(_LINK, ["-Wl,--gc-sections"]),
            ],
        ),
        feature(name = "size_optimized"),
        # Bazel enables exactly one of these per compilation mode.
        feature(name = "fastbuild"),
        feature(name = "opt"),
        feature(name = "dbg"),
        feature(
            name = "optimization",
            enabled = True,
            flag_sets = [
                _flags(_ALL_COMPILE + _LINK, ["-Os"], [with_feature_set(features = ["size_optimized"])]),
                _flags(_ALL_COMPILE, ["-Os"], [with_feature_set(features = ["fastbuild"], not_features = ["size_optimized"])]),
                _flags(_ALL_COMPILE, ["-O2"], [with_feature_set(features = ["opt"], not_features = ["size_optimized"])]),
                _flags(_ALL_COMPILE, ["-DNDEBUG"], [with_feature_set(features = ["opt"])]),
                _flags(_ALL_COMPILE, ["-Og", "-g3"], [with_feature_set(features = ["dbg"], not_features = ["size_optimized"])]),
                _flags(_ALL_COMPILE, ["-g3"], [with_feature_set(features = ["dbg", "size_optimized"])]),
            ],
        ),
        feature(
            name = "nano",
            flag_sets = [_flags(_ALL_COMPILE + _LINK, ["--printf=i", "--scanf=i"])],
        ),
        feature(
            name = "no_exceptions",
            enabled = True,
            flag_sets = [_flags(_CXX_COMPILE, ["-fno-exceptions"])],
        ),
        feature(
            name = "no_rtti",
            enabled = True,
            flag_sets = [_flags(_CXX_COMPILE, ["-fno-rtti"])],
        ),
    ]

    return cc_common.create_cc_toolchain_config_info(
        ctx = ctx,
        toolchain_identifier = "arm-none-eabi-" + ctx.attr.core,
        host_system_name = "x86_64-linux-gnu",
        target_system_name = "arm-none-eabi",
        target_cpu = ctx.attr.core,
        target_libc = "picolibc",
        compiler = "gcc",
        abi_version = "eabi",
        abi_libc_version = "picolibc",
        action_configs = action_configs,
        features = features,
        cxx_builtin_include_directories = [
            "/usr/lib/gcc/arm-none-eabi",
            "/usr/arm-none-eabi/include",
        ],
        tool_paths = [
            tool_path(name = name, path = _TOOL_PREFIX + name)
            for name in ["ar", "cpp", "gcc", "gcov", "ld", "nm", "objcopy", "objdump", "strip"]
        ],
    )

arm_none_eabi_toolchain_config = rule(
    implementation = _impl,
    attrs = {
        "core": attr.string(mandatory = True),
        "cpu_flags": attr.string_list(mandatory = True),
    },
    provides = [CcToolchainConfigInfo],
)
