"""cc toolchain configuration for aarch64-linux-musl through `zig cc` / `zig c++`.

zig (clang + lld, with musl and libc++ sources) comes from the PyPI `ziglang` wheel
(@ziglang, third_party/zig/ziglang.BUILD). Bazel's actions run the wrappers beside this
file (zig-cc, zig-c++, zig-ar -> zig.sh), which find zig through the environment set
here and keep zig's cache under Bazel's output root. Binaries are static.

Compilation modes: fastbuild -O1, opt -O2 -DNDEBUG, dbg -O0 -g. gc_sections is on.
"""

load("@rules_cc//cc:action_names.bzl", "ACTION_NAMES")
load(
    "@rules_cc//cc:cc_toolchain_config_lib.bzl",
    "action_config",
    "env_entry",
    "env_set",
    "feature",
    "flag_group",
    "flag_set",
    "tool",
    "variable_with_value",
    "with_feature_set",
)

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
_ARCHIVE = [ACTION_NAMES.cpp_link_static_library]

def _flags(actions, flags, with_features = []):
    return flag_set(actions = actions, flag_groups = [flag_group(flags = flags)], with_features = with_features)

def _impl(ctx):
    zig = ctx.file.zig
    target = ["-target", ctx.attr.target]

    action_configs = [
        action_config(action_name = a, enabled = True, tools = [tool(path = "zig-cc")])
        for a in _C_COMPILE + _ASM
    ] + [
        action_config(action_name = a, enabled = True, tools = [tool(path = "zig-c++")])
        for a in _CXX_COMPILE + _LINK
    ] + [
        action_config(
            action_name = ACTION_NAMES.cpp_link_static_library,
            enabled = True,
            tools = [tool(path = "zig-ar")],
            implies = ["archiver_flags"],
        ),
    ]

    features = [
        feature(
            name = "zig_environment",
            enabled = True,
            env_sets = [env_set(
                actions = _ALL_COMPILE + _LINK + _ARCHIVE,
                env_entries = [
                    env_entry(key = "ETARM_ZIG", value = zig.path),
                    env_entry(key = "ZIG_LIB_DIR", value = zig.dirname + "/lib"),
                ],
            )],
        ),
        feature(
            name = "target_flags",
            enabled = True,
            flag_sets = [
                _flags(_ALL_COMPILE + _LINK, target),
                _flags(_ALL_COMPILE, [
                    "-Wall",
                    # zig turns UBSan traps on in unoptimised builds; GCC-like behaviour here.
                    "-fno-sanitize=undefined",
                    "-Wno-builtin-macro-redefined",
                    "-D__DATE__=\"redacted\"",
                    "-D__TIMESTAMP__=\"redacted\"",
                    "-D__TIME__=\"redacted\"",
                ]),
                _flags(_CXX_COMPILE, ["-std=c++17"]),
                _flags(_LINK, ["-static"]),
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
        feature(name = "fastbuild"),
        feature(name = "opt"),
        feature(name = "dbg"),
        feature(
            name = "optimization",
            enabled = True,
            flag_sets = [
                _flags(_ALL_COMPILE, ["-O1"], [with_feature_set(features = ["fastbuild"])]),
                _flags(_ALL_COMPILE, ["-O2", "-DNDEBUG"], [with_feature_set(features = ["opt"])]),
                _flags(_ALL_COMPILE, ["-O0", "-g"], [with_feature_set(features = ["dbg"])]),
            ],
        ),
        # `zig ar rcsD out.a objs...` (an action_config for archiving replaces Bazel's
        # built-in archiver flags, so they are spelled out here).
        feature(
            name = "archiver_flags",
            flag_sets = [flag_set(
                actions = _ARCHIVE,
                flag_groups = [
                    flag_group(flags = ["rcsD", "%{output_execpath}"], expand_if_available = "output_execpath"),
                    flag_group(
                        iterate_over = "libraries_to_link",
                        expand_if_available = "libraries_to_link",
                        flag_groups = [
                            flag_group(
                                flags = ["%{libraries_to_link.name}"],
                                expand_if_equal = variable_with_value(name = "libraries_to_link.type", value = "object_file"),
                            ),
                            flag_group(
                                flags = ["%{libraries_to_link.object_files}"],
                                iterate_over = "libraries_to_link.object_files",
                                expand_if_equal = variable_with_value(name = "libraries_to_link.type", value = "object_file_group"),
                            ),
                        ],
                    ),
                ],
            )],
        ),
    ]

    return cc_common.create_cc_toolchain_config_info(
            ctx = ctx,
            toolchain_identifier = "zig-" + ctx.attr.target,
            host_system_name = "x86_64-linux-gnu",
            target_system_name = ctx.attr.target,
            target_cpu = ctx.attr.target.split("-")[0],
            target_libc = "musl",
            compiler = "clang",
            abi_version = "musl",
            abi_libc_version = "musl",
            action_configs = action_configs,
            features = features,
    )

zig_toolchain_config = rule(
    implementation = _impl,
    attrs = {
        "target": attr.string(mandatory = True, doc = "zig target triple, e.g. aarch64-linux-musl"),
        "zig": attr.label(mandatory = True, allow_single_file = True, cfg = "exec"),
    },
    provides = [CcToolchainConfigInfo],
)
