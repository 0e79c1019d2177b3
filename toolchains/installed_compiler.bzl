"""installed_compiler: a stamp of a cross compiler installed in the bazelw root.

The compilers are system packages (/usr/bin/<triple>-*), outside Bazel's file tree, so no
action could otherwise see them change. Each repository holds one file, `stamp`, naming the
compiler's version and the Debian versions of the packages it compiles and links with; the
toolchains declare it as their compiler, linker and archiver files, so every action that
runs the compiler depends on it. Bazel re-runs this rule when the dpkg database or the
compiler binary changes (repository_ctx.watch); the stamp's content changes with any of
those versions, and then every compile and link action runs again.
"""

_DPKG_STATUS = "/var/lib/dpkg/status"

def _run(rctx, args):
    result = rctx.execute(args)
    return result.stdout.strip() if result.return_code == 0 else "(%s failed: %s)" % (args[0], result.stderr.strip())

def _installed_compiler_impl(rctx):
    lines = ["# %s in the bazelw root (toolchains/installed_compiler.bzl)" % rctx.attr.tool]
    tool = rctx.path(rctx.attr.tool)
    if tool.exists:
        rctx.watch(tool)
        lines.append("gcc " + _run(rctx, [rctx.attr.tool, "-dumpfullversion"]))
    else:
        lines.append("gcc not installed at " + rctx.attr.tool)
    if rctx.path(_DPKG_STATUS).exists and rctx.which("dpkg-query"):
        rctx.watch(_DPKG_STATUS)
        lines.append(_run(rctx, ["dpkg-query", "-W", "-f=${Package} ${Version}\\n"] + rctx.attr.packages))
    rctx.file("stamp", "\n".join(lines) + "\n")
    rctx.file("BUILD.bazel", 'exports_files(["stamp"], visibility = ["//visibility:public"])\n')

installed_compiler = repository_rule(
    implementation = _installed_compiler_impl,
    local = True,
    attrs = {
        "tool": attr.string(mandatory = True, doc = "The compiler driver's absolute path."),
        "packages": attr.string_list(mandatory = True, doc = "Debian packages it compiles and links with."),
    },
    doc = "A stamp file whose content changes with an installed cross compiler.",
)
