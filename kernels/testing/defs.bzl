"""kernel_tests(): the tests of a kernel library, one file per op, on the host and in QEMU.

    kernel_tests(name = "portable", kernels = "//kernels/portable", ops = ["add", "mm"])

declares, for each op, `op_<op>_test` (a host cc_test of op_<op>_test.cc on the genuine
prebuilt runtime's registry); and every file together on runtime/core in one program per
target: `<name>_on_core_test` (the host), `<name>_corstone300_test` (a bare-metal image
on QEMU's Corstone-300, Cortex-M55 with GCC) and `<name>_aarch64_test` (static
aarch64-linux-musl built by zig's clang, under qemu-aarch64). So a kernel is checked
against both registries, two compilers and three CPUs.
"""

load("//runtime/testing:defs.bzl", "etarm_cc_test", "etarm_qemu_test", "etarm_qemu_user_test")

HARNESS = Label("//kernels/testing:harness")

def kernel_tests(name, kernels, ops, genuine_runtime = True, deps = []):
    """Declares the tests described above.

    Args:
      name: prefix of the combined tests.
      kernels: the kernel library under test.
      ops: op names; each has a file op_<op>_test.cc.
      genuine_runtime: also run each file on the host against the genuine libexecutorch.so
        (libraries registering through runtime/core's priorities cannot: set False).
      deps: more libraries the tests need.
    """
    srcs = ["op_%s_test.cc" % op for op in ops]
    on_core = [HARNESS, kernels, Label("//runtime/core")] + deps
    on_core_linux = on_core + [Label("//runtime/core:pal_posix")]
    if genuine_runtime:
        for op, src in zip(ops, srcs):
            etarm_cc_test(
                name = "op_%s_test" % op,
                size = "small",
                srcs = [src],
                executorch = True,
                deps = [HARNESS, kernels, Label("@executorch_wheel//:runtime")] + deps,
            )
    etarm_cc_test(
        name = name + "_on_core_test",
        size = "small",
        srcs = srcs,
        executorch = True,
        linkstatic = True,
        deps = on_core_linux,
    )
    etarm_qemu_test(
        name = name + "_corstone300_test",
        srcs = srcs,
        copts = ["-Wno-psabi"],  # see //kernels/testing:NO_ABI_NOTES
        executorch = True,
        expect_output = ["ALL TESTS PASSED"],
        deps = on_core + [Label("//runtime/platform:executorch_pal")],
    )
    etarm_qemu_user_test(
        name = name + "_aarch64_test",
        srcs = srcs,
        executorch = True,
        expect_output = ["ALL TESTS PASSED"],
        deps = on_core_linux,
    )
