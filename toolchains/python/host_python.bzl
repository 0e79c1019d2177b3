"""The host's CPython 3.11 as Bazel's Python toolchain, and its C headers.

bazelw bind-mounts the host interpreter's prefix into its root and names the
interpreter in ETARM_PYTHON; this repository rule turns it into a py_runtime and
`@host_python//:headers` (Python.h), which extension modules (etarm.runtime) build against:
an extension must match the interpreter that loads it.
"""

def _host_python_repo_impl(rctx):
    interpreter = rctx.os.environ.get("ETARM_PYTHON") or rctx.which("python3.11")
    if not interpreter:
        fail("etarm: no CPython 3.11 found. Run Bazel through ./bazelw, or set ETARM_PYTHON.")
    result = rctx.execute([interpreter, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"])
    version = result.stdout.strip()
    if result.return_code != 0 or version != "3.11":
        fail("etarm: %s is Python %s; etarm needs CPython 3.11 (the CPU torch wheel is cp311)." % (interpreter, version or "?"))
    include = rctx.execute([interpreter, "-c", "import sysconfig; print(sysconfig.get_paths()['include'])"])
    if include.return_code != 0 or not rctx.path(include.stdout.strip() + "/Python.h").exists:
        fail("etarm: %s has no C headers (Python.h); etarm.runtime builds against them." % interpreter)
    rctx.symlink(include.stdout.strip(), "include")
    rctx.file("BUILD.bazel", """
load("@rules_cc//cc:defs.bzl", "cc_library")
load("@rules_python//python:defs.bzl", "py_runtime", "py_runtime_pair")

cc_library(
    name = "headers",
    hdrs = glob(["include/**/*.h"]),
    includes = ["include"],
    visibility = ["//visibility:public"],
)

py_runtime(
    name = "runtime",
    interpreter_path = "{interpreter}",
    python_version = "PY3",
)

py_runtime_pair(
    name = "runtime_pair",
    py3_runtime = ":runtime",
)

toolchain(
    name = "toolchain",
    toolchain = ":runtime_pair",
    toolchain_type = "@bazel_tools//tools/python:toolchain_type",
)

exports_files(["interpreter_path.txt"])
""".format(interpreter = interpreter))
    rctx.file("interpreter_path.txt", interpreter + "\n")

host_python_repo = repository_rule(
    implementation = _host_python_repo_impl,
    environ = ["ETARM_PYTHON", "PATH"],
    local = True,
)

def _host_python_impl(_module_ctx):
    host_python_repo(name = "host_python")

host_python = module_extension(implementation = _host_python_impl)
