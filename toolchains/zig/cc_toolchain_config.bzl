"""cc toolchain configuration for aarch64-linux-musl through `zig cc` / `zig c++`.

zig (clang + lld, with musl and libc++ sources) comes from the PyPI `ziglang` wheel
(@ziglang, third_party/zig/ziglang.BUILD). Bazel's actions run the wrappers beside this
file (zig-cc, zig-c++, zig-ar -> zig.sh), which find zig through the environment set
here and keep zig's cache under Bazel's output root. Binaries are static.

Compilation modes: fastbuild -O1 -UNDEBUG, opt -O2 -DNDEBUG, dbg -O0 -g. gc_sections is on.
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
)
load(
    "//toolchains:cc_toolchain_common.bzl",
    "ALL_COMPILE",
    "ARCHIVE",
    "LINK",
    "compilation_mode_features",
    "compiler_action_configs",
    "gc_sections_feature",
    "optimization_feature",
    "target_flags_feature",
    "toolchain_config_info",
)

def _impl(ctx):
    zig = ctx.file.zig

    action_configs = compiler_action_configs("zig-cc", "zig-c++") + [
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
                actions = ALL_COMPILE + LINK + ARCHIVE,
                env_entries = [
                    env_entry(key = "ETARM_ZIG", value = zig.path),
                    env_entry(key = "ZIG_LIB_DIR", value = zig.dirname + "/lib"),
                ],
            )],
        ),
        target_flags_feature(
            target = ["-target", ctx.attr.target],
            # zig turns UBSan traps on in unoptimised builds; GCC-like behaviour here.
            compile = ["-fno-sanitize=undefined"],
            cxx = ["-std=c++17"],
            link = ["-static"],
        ),
        gc_sections_feature(),
    ] + compilation_mode_features() + [
        # zig defines NDEBUG from -O1 on; with NDEBUG, ExecuTorch's c10 headers declare
        # __assert_fail in a way that clashes with musl's <assert.h>.
        optimization_feature(
            levels = {"fastbuild": ["-O1"], "opt": ["-O2"], "dbg": ["-O0"]},
            always = {"fastbuild": ["-UNDEBUG"], "opt": ["-DNDEBUG"], "dbg": ["-g"]},
        ),
        # `zig ar rcsD out.a objs...` (an action_config for archiving replaces Bazel's
        # built-in archiver flags, so they are spelled out here).
        feature(
            name = "archiver_flags",
            flag_sets = [flag_set(
                actions = ARCHIVE,
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

    return toolchain_config_info(
        ctx,
        target_system_name = ctx.attr.target,
        target_cpu = ctx.attr.target.split("-")[0],
        libc = "musl",
        compiler = "clang",
        abi_version = "musl",
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
