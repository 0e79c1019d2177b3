"""Test programs on etarm's C++ test framework (//runtime/testing).

    load("//runtime/testing:defs.bzl", "etarm_cc_test", "etarm_qemu_test", "etarm_qemu_user_test")

    etarm_cc_test(name = "x_test", srcs = ["x_test.cc"], deps = [...])       # on the host
    etarm_qemu_test(name = "x_corstone300_test", srcs = ["x_test.cc"], deps = [...])
    etarm_qemu_user_test(name = "x_aarch64_test", srcs = ["x_test.cc"], deps = [...])

All link the framework's main(), which runs every TEST of the program; the exit code is
the verdict. etarm_cc_test is host-only (Bazel executes it); etarm_qemu_test builds a
bare-metal program for `platform` and runs it in QEMU, etarm_qemu_user_test a static
aarch64-linux-musl program under qemu-aarch64 (tests/sim/defs.bzl). With
`executorch = True` the main calls ExecuTorch's runtime_init() first (the program links a
runtime: the genuine one or //runtime/core).
"""

load("@rules_cc//cc:defs.bzl", "cc_binary", "cc_test")
load("//platforms:compat.bzl", "HOST")
load("//tests/sim:defs.bzl", "bare_metal_program", "qemu_test", "qemu_user_test")

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

def _program_and_test(name, program_rule, test_rule, srcs, deps, executorch, args, size, copts, **kwargs):
    program_rule(
        name = name + "_program",
        testonly = True,
        srcs = srcs,
        copts = copts,
        deps = deps + [test_main(executorch)],
    )
    test_rule(
        name = name,
        size = size,
        args = args,
        binary = ":" + name + "_program",
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
    _program_and_test(name, bare_metal_program, qemu_test, srcs, deps, executorch, args, size, copts, platform = platform, **kwargs)

def _aarch64_linux_program(**kwargs):
    cc_binary(
        linkstatic = True,
        target_compatible_with = [
            "@platforms//os:linux",
            "@platforms//cpu:aarch64",
        ],
        **kwargs
    )

def etarm_qemu_user_test(name, srcs, deps = [], executorch = False, args = [], size = "small", copts = [], **kwargs):
    """A static aarch64-linux-musl program `name + "_program"` on the framework, run by
    qemu_user_test `name`; arguments as etarm_qemu_test's."""
    _program_and_test(name, _aarch64_linux_program, qemu_user_test, srcs, deps, executorch, args, size, copts, **kwargs)
