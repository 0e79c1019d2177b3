"""Which builds a target belongs to: `target_compatible_with` values.

`bazel build //...` and `bazel test //...` skip targets that are incompatible with the
target platform, so every target says where it applies:

  HOST            runs or links on the x86_64 Linux host only: the genuine prebuilt
                  ExecuTorch runtime, cc_tests (Bazel executes them), Python.
  BARE_METAL      Cortex-M code (any board): start-up, board libraries, bare-metal mains.
  host_or(p)      a test or binary that transitions to platform `p` itself (qemu_test,
                  platform_binary, etarm_firmware): built and run in the host build and in
                  `--config=p`, skipped in every other cross config (which would otherwise
                  build it again in a configuration of its own).
"""

HOST = [
    "@platforms//os:linux",
    "@platforms//cpu:x86_64",
]

BARE_METAL = ["@platforms//os:none"]

def host_or(platform):
    """Compatible with the host and with `platform` (a label in //platforms)."""
    label = native.package_relative_label(platform)
    if label.package != "platforms":
        fail("host_or(%s): not a platform of //platforms" % platform)
    return select({
        Label("//platforms:is_host"): [],
        Label("//platforms:is_" + label.name): [],
        "//conditions:default": ["@platforms//:incompatible"],
    })
