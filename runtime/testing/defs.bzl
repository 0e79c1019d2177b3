"""Test programs on etarm's C++ test framework (//runtime/testing).

    load("//runtime/testing:defs.bzl", "etarm_cc_test", "etarm_qemu_test")

    etarm_cc_test(name = "x_test", srcs = ["x_test.cc"], deps = [...])       # on the host
    etarm_qemu_test(name = "x_corstone300_test", srcs = ["x_test.cc"], deps = [...])

Both link the framework's main(), which runs every TEST of the program; the exit code is
the verdict. etarm_cc_test is host-only (Bazel executes it); etarm_qemu_test builds a
bare-metal program for `platform` and runs it in QEMU (tests/sim/defs.bzl). With
`executorch = True` the main calls ExecuTorch's runtime_init() first (the program links a
runtime: the genuine one or //runtime/core).
"""

load("@rules_cc//cc:defs.bzl", "cc_test")
load("//platforms:compat.bzl", "HOST")
load("//tests/sim:defs.bzl", "bare_metal_program", "qemu_test")

def test_main(executorch = False):
    """The framework's main() library: plain, or calling ExecuTorch's runtime_init() first."""
    return Label("//runtime/testing:executorch_main" if executorch else "//runtime/testing:main")

def etarm_cc_test(name, deps = [], executorch = False, **kwargs):
    """A cc_test on the framework, for the x86_64 host."""
    cc_test(
        name = name,
        deps = deps + [test_main(executorch)],
        target_compatible_with = HOST,
        **kwargs
    )

def etarm_qemu_test(name, srcs, deps = [], executorch = False, platform = "//platforms:corstone300", args = [], size = "small", copts = [], **kwargs):
    """A bare-metal program `name + "_program"` on the framework, run by qemu_test `name`.

    Args:
      name: the test.
      srcs, deps, copts: the program's sources, libraries and compiler options.
      executorch: the main calls ExecuTorch's runtime_init() before the cases.
      platform: the board (a platform of //platforms with a QEMU machine).
      args: the program's arguments (semihosting command line).
      size: the test size.
      **kwargs: more qemu_test attributes (expect_output, timeout, tags, ...).
    """
    bare_metal_program(
        name = name + "_program",
        testonly = True,
        srcs = srcs,
        copts = copts,
        deps = deps + [test_main(executorch)],
    )
    qemu_test(
        name = name,
        size = size,
        args = args,
        binary = ":" + name + "_program",
        platform = platform,
        **kwargs
    )
