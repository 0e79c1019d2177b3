"""The runner linked with a choice of kernel libraries.

Kernel libraries register their kernels from static initialisers (alwayslink): a program
gets exactly the ops of the libraries it links, and where two libraries have a kernel for
the same op, runtime/core's registry keeps the one registered with the higher priority
(runtime/core/kernel_registry.h). The default is the portable kernels alone.

    load("//runtime/runner:defs.bzl", "etarm_linux_runner")
    etarm_linux_runner(name = "runner_cmsis", kernels = ["//kernels/cortex_m", "//kernels/portable"])

For boards, etarm_firmware (runtime/platform/firmware.bzl) takes the same `kernels`.
"""

load("@rules_cc//cc:defs.bzl", "cc_binary")
load("//platforms:compat.bzl", "LINUX")

DEFAULT_KERNELS = [Label("//kernels/portable")]

def etarm_linux_runner(name, kernels = DEFAULT_KERNELS, **kwargs):
    """`name MODEL.pte [INPUTS.bin] ...` (main_linux.cc) on runtime/core with `kernels`.

    Args:
      name: the binary.
      kernels: kernel libraries (alwayslink cc_libraries) to link.
      **kwargs: cc_binary attributes (testonly, visibility, ...).
    """
    cc_binary(
        name = name,
        linkstatic = True,
        target_compatible_with = LINUX,
        deps = [
            Label("//runtime/runner:main_linux"),
            Label("//runtime/core"),
            Label("//runtime/core:file_data_loader"),
            Label("//runtime/core:pal_posix"),
        ] + kernels,
        **kwargs
    )
