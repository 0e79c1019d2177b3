"""cc toolchain configuration for Debian's aarch64-linux-gnu GCC (glibc) in the bazelw root.

For aarch64 Linux programs that need glibc rather than musl: the VGF runner links libvgf.a
from the vgf-library's aarch64 wheel, which is built against glibc and libstdc++.
Binaries link glibc dynamically (a Vulkan device's loader and driver are shared libraries
of its glibc system) and libstdc++/libgcc statically, so a device needs glibc alone.
Under qemu-aarch64 the cross glibc in /usr/aarch64-linux-gnu serves as the sysroot
(//tests/sim:defs.bzl).

Compilation modes: fastbuild -O1, opt -O2 -DNDEBUG, dbg -O0 -g. gc_sections is on.
"""

load(
    "//toolchains:cc_toolchain_common.bzl",
    "compilation_mode_features",
    "compiler_action_configs",
    "gc_sections_feature",
    "gcc_tool_paths",
    "optimization_feature",
    "target_flags_feature",
    "toolchain_config_info",
)

_TOOL_PREFIX = "/usr/bin/aarch64-linux-gnu-"

def _impl(ctx):
    action_configs = compiler_action_configs(_TOOL_PREFIX + "gcc", _TOOL_PREFIX + "g++")
    features = [
        target_flags_feature(
            target = [],
            compile = [
                # Paths in depfiles as the compiler saw them, so Bazel can match them.
                "-no-canonical-prefixes",
                "-fno-canonical-system-headers",
            ],
            cxx = ["-std=c++17"],
            link = ["-static-libstdc++", "-static-libgcc", "-lm"],
        ),
        gc_sections_feature(),
    ] + compilation_mode_features() + [
        optimization_feature(
            levels = {"fastbuild": ["-O1"], "opt": ["-O2"], "dbg": ["-O0"]},
            always = {"opt": ["-DNDEBUG"], "dbg": ["-g"]},
        ),
    ]
    return toolchain_config_info(
        ctx,
        target_system_name = "aarch64-linux-gnu",
        target_cpu = "aarch64",
        libc = "glibc",
        compiler = "gcc",
        abi_version = "gnu",
        action_configs = action_configs,
        features = features,
        cxx_builtin_include_directories = [
            "/usr/lib/gcc-cross/aarch64-linux-gnu",
            "/usr/aarch64-linux-gnu/include",
            # Architecture-independent headers of the root (the Vulkan headers).
            "/usr/include",
        ],
        tool_paths = gcc_tool_paths(_TOOL_PREFIX),
    )

gcc_aarch64_linux_gnu_toolchain_config = rule(
    implementation = _impl,
    provides = [CcToolchainConfigInfo],
)
