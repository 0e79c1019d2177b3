"""installed_compiler: a stamp of the arm-none-eabi compiler installed in the bazelw root.

The compiler is a system package (/usr/bin/arm-none-eabi-*), outside Bazel's file tree, so
no action could otherwise see it change. This repository holds one file, `stamp`, naming
the compiler's version and the Debian versions of the packages it compiles and links with;
the toolchains declare it as their compiler, linker and archiver files, so every action
that runs the compiler depends on it. Bazel re-runs this rule when the dpkg database or the
compiler binary changes (repository_ctx.watch); the stamp's content changes with any of
those versions, and then every compile and link action runs again.
"""

_TOOL = "/usr/bin/arm-none-eabi-gcc"
_PACKAGES = [
    "gcc-arm-none-eabi",
    "binutils-arm-none-eabi",
    "picolibc-arm-none-eabi",
    "libstdc++-arm-none-eabi",
]
_DPKG_STATUS = "/var/lib/dpkg/status"

def _run(rctx, args):
    result = rctx.execute(args)
    return result.stdout.strip() if result.return_code == 0 else "(%s failed: %s)" % (args[0], result.stderr.strip())

def _installed_compiler_impl(rctx):
    lines = ["# arm-none-eabi toolchain in the bazelw root (toolchains/arm_none_eabi/installed_compiler.bzl)"]
    tool = rctx.path(_TOOL)
    if tool.exists:
        rctx.watch(tool)
        lines.append("gcc " + _run(rctx, [_TOOL, "-dumpfullversion"]))
    else:
        lines.append("gcc not installed at " + _TOOL)
    if rctx.path(_DPKG_STATUS).exists and rctx.which("dpkg-query"):
        rctx.watch(_DPKG_STATUS)
        lines.append(_run(rctx, ["dpkg-query", "-W", "-f=${Package} ${Version}\\n"] + _PACKAGES))
    rctx.file("stamp", "\n".join(lines) + "\n")
    rctx.file("BUILD.bazel", 'exports_files(["stamp"], visibility = ["//visibility:public"])\n')

installed_compiler = repository_rule(
    implementation = _installed_compiler_impl,
    local = True,
    doc = "A stamp file whose content changes with the installed arm-none-eabi toolchain.",
)
