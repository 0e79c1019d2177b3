"""kernel_tests(): the tests of a kernel library, one file per op, on the host and in QEMU.

    kernel_tests(name = "portable", kernels = "//kernels/portable", ops = ["add", "mm"])

declares, for each op, `op_<op>_test` (a host cc_test of op_<op>_test.cc on the genuine
prebuilt runtime's registry) and one `<name>_corstone300_test` (every file in one
bare-metal image on runtime/core, run on QEMU's Corstone-300), plus `<name>_on_core_test`
(the same image's sources on the host with runtime/core), so a kernel is checked against
both registries.
"""

load("//runtime/testing:defs.bzl", "etarm_cc_test", "etarm_qemu_test")

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
        deps = [HARNESS, kernels, Label("//runtime/core"), Label("//runtime/core:pal_posix")] + deps,
    )
    etarm_qemu_test(
        name = name + "_corstone300_test",
        srcs = srcs,
        copts = ["-Wno-psabi"],  # see //kernels/testing:NO_ABI_NOTES
        executorch = True,
        expect_output = ["ALL TESTS PASSED"],
        deps = [HARNESS, kernels, Label("//runtime/core"), Label("//runtime/platform:executorch_pal")] + deps,
    )
