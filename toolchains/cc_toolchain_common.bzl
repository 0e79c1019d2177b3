"""What the cc toolchains in arm_none_eabi/ and zig/ build their configurations from.

Action groups and the `flags` shorthand; the tools, flag sets and features both
configurations share (compiler action configs, `target_flags`, `optimization`,
`gc_sections`, the compilation modes), each taking what differs as arguments; and
`registered_cc_toolchain`: a cc_toolchain with its declared tool files plus the
toolchain() offering it to Linux x86_64 hosts.
"""

load("@rules_cc//cc:action_names.bzl", "ACTION_NAMES")
load("@rules_cc//cc:cc_toolchain_config_lib.bzl", "action_config", "feature", "flag_group", "flag_set", "tool", "tool_path", "with_feature_set")
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

def compiler_action_configs(c_compiler, cxx_driver):
    """C and assembly through the tool `c_compiler`; C++ and linking through `cxx_driver`
    (as the link driver it pulls the C++ libraries in when C++ code needs them)."""
    return [
        action_config(action_name = a, enabled = True, tools = [tool(path = c_compiler)])
        for a in C_COMPILE + ASM
    ] + [
        action_config(action_name = a, enabled = True, tools = [tool(path = cxx_driver)])
        for a in CXX_COMPILE + LINK
    ]

def gcc_tool_paths(prefix):
    """tool_paths of a GCC cross toolchain whose tools are `<prefix>ar`, `<prefix>gcc`, ...
    (archiving and stripping keep Bazel's built-in configurations, which bring their flags)."""
    return [
        tool_path(name = name, path = prefix + name)
        for name in ["ar", "cpp", "gcc", "gcov", "ld", "nm", "objcopy", "objdump", "strip"]
    ]

def target_flags_feature(target, compile = [], cxx = [], link = []):
    """`target_flags` (on): `target` (the target's own flags) on every compile and link;
    -Wall, reproducible outputs and `compile` on compiles; `cxx` on C++ compiles; `link` on
    links."""
    flag_sets = [
        flags(actions, these)
        for actions, these in [
            (ALL_COMPILE + LINK, target),
            (ALL_COMPILE, ["-Wall"] + compile + REPRODUCIBLE_FLAGS),
            (CXX_COMPILE, cxx),
            (LINK, link),
        ]
        if these
    ]
    return feature(name = "target_flags", enabled = True, flag_sets = flag_sets)

def optimization_feature(levels, always = {}, unless = None, extra = []):
    """`optimization` (on): per compilation mode (fastbuild, opt, dbg), the optimisation
    flags `levels[mode]`, left out while the feature `unless` is on (a feature choosing its
    own level), and `always[mode]` in any case; `extra`: more flag sets."""
    flag_sets = []
    for mode in ["fastbuild", "opt", "dbg"]:
        if levels.get(mode):
            not_features = [unless] if unless else []
            flag_sets.append(flags(ALL_COMPILE, levels[mode], [with_feature_set(features = [mode], not_features = not_features)]))
        if always.get(mode):
            flag_sets.append(flags(ALL_COMPILE, always[mode], [with_feature_set(features = [mode])]))
    return feature(name = "optimization", enabled = True, flag_sets = extra + flag_sets)

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

def toolchain_config_info(ctx, target_system_name, target_cpu, libc, compiler, abi_version, action_configs, features, **kwargs):
    """The CcToolchainConfigInfo of a cross toolchain run on the x86_64 Linux host;
    `kwargs`: more create_cc_toolchain_config_info arguments (tool_paths, include dirs)."""
    return cc_common.create_cc_toolchain_config_info(
        ctx = ctx,
        toolchain_identifier = "%s-%s" % (compiler, target_cpu),
        host_system_name = "x86_64-linux-gnu",
        target_system_name = target_system_name,
        target_cpu = target_cpu,
        target_libc = libc,
        compiler = compiler,
        abi_version = abi_version,
        abi_libc_version = libc,
        action_configs = action_configs,
        features = features,
        **kwargs
    )

def registered_cc_toolchain(
        name,
        toolchain_config,
        target_compatible_with,
        all_files,
        compiler_files,
        linker_files,
        ar_files):
    """The cc_toolchain `<name>_cc_toolchain` and the toolchain() `name` offering it.

    Args:
      name: the toolchain() target, the one to register.
      toolchain_config: the CcToolchainConfigInfo target.
      target_compatible_with: constraints of the platforms it builds for (the host: Linux
        x86_64).
      all_files, compiler_files, linker_files, ar_files: what the actions need as inputs
        (assembling takes compiler_files): the compiler's own files, or a stamp that
        changes with it (installed_compiler.bzl), so that a new compiler
        rebuilds. dwp, objcopy and strip take all_files.
    """
    cc_toolchain(
        name = name + "_cc_toolchain",
        all_files = all_files,
        ar_files = ar_files,
        as_files = compiler_files,
        compiler_files = compiler_files,
        dwp_files = all_files,
        linker_files = linker_files,
        objcopy_files = all_files,
        strip_files = all_files,
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
