"""What the cc toolchains in arm_none_eabi/ and zig/ build their configurations from.

Action groups and the `flags` shorthand, the flags and features both configurations share,
and `registered_cc_toolchain`: a cc_toolchain plus the toolchain() offering it to Linux
x86_64 hosts.
"""

load("@rules_cc//cc:action_names.bzl", "ACTION_NAMES")
load("@rules_cc//cc:cc_toolchain_config_lib.bzl", "feature", "flag_group", "flag_set")
load("@rules_cc//cc:defs.bzl", "cc_toolchain")

C_COMPILE = [ACTION_NAMES.c_compile]
CXX_COMPILE = [
    ACTION_NAMES.cpp_compile,
    ACTION_NAMES.cpp_header_parsing,
    ACTION_NAMES.cpp_module_compile,
    ACTION_NAMES.linkstamp_compile,
]
ASM = [ACTION_NAMES.assemble, ACTION_NAMES.preprocess_assemble]
ALL_COMPILE = C_COMPILE + CXX_COMPILE + ASM
LINK = [ACTION_NAMES.cpp_link_executable]
ARCHIVE = [ACTION_NAMES.cpp_link_static_library]

# Reproducible outputs: no build date or time in the objects.
REPRODUCIBLE_FLAGS = [
    "-Wno-builtin-macro-redefined",
    "-D__DATE__=\"redacted\"",
    "-D__TIMESTAMP__=\"redacted\"",
    "-D__TIME__=\"redacted\"",
]

def flags(actions, flags, with_features = []):
    """A flag_set of one flag_group: `flags` on `actions` (when `with_features` hold)."""
    return flag_set(actions = actions, flag_groups = [flag_group(flags = flags)], with_features = with_features)

def gc_sections_feature():
    """`gc_sections` (on): a section per function and object, unused ones dropped at link time."""
    return feature(
        name = "gc_sections",
        enabled = True,
        flag_sets = [
            flags(ALL_COMPILE, ["-ffunction-sections", "-fdata-sections"]),
            flags(LINK, ["-Wl,--gc-sections"]),
        ],
    )

def compilation_mode_features():
    """fastbuild, opt and dbg: Bazel enables exactly one of them per compilation mode."""
    return [feature(name = "fastbuild"), feature(name = "opt"), feature(name = "dbg")]

def registered_cc_toolchain(
        name,
        toolchain_config,
        target_compatible_with,
        all_files = ":empty",
        compiler_files = ":empty",
        linker_files = ":empty",
        ar_files = ":empty"):
    """The cc_toolchain `<name>_cc_toolchain` and the toolchain() `name` offering it.

    Args:
      name: the toolchain() target, the one to register.
      toolchain_config: the CcToolchainConfigInfo target.
      target_compatible_with: constraints of the platforms it builds for (the host: Linux
        x86_64).
      all_files, compiler_files, linker_files, ar_files: what the actions need staged
        (assembling takes compiler_files); the package must have an `empty` filegroup for
        the defaults and for dwp, objcopy and strip.
    """
    cc_toolchain(
        name = name + "_cc_toolchain",
        all_files = all_files,
        ar_files = ar_files,
        as_files = compiler_files,
        compiler_files = compiler_files,
        dwp_files = ":empty",
        linker_files = linker_files,
        objcopy_files = ":empty",
        strip_files = ":empty",
        supports_param_files = True,
        toolchain_config = toolchain_config,
    )
    native.toolchain(
        name = name,
        exec_compatible_with = [
            "@platforms//os:linux",
            "@platforms//cpu:x86_64",
        ],
        target_compatible_with = target_compatible_with,
        toolchain = ":" + name + "_cc_toolchain",
        toolchain_type = "@bazel_tools//tools/cpp:toolchain_type",
    )
