"""Which builds a target belongs to: `target_compatible_with` values.

`bazel build //...` and `bazel test //...` skip targets that are incompatible with the
target platform, so every target says where it applies:

  HOST            runs or links on the x86_64 Linux host only: the genuine prebuilt
                  ExecuTorch runtime, cc_tests (Bazel executes them), Python.
  BARE_METAL      Cortex-M code (any board): start-up, board libraries, bare-metal mains.
  LINUX           code for any Linux (the host, aarch64-musl): POSIX platform functions,
                  the Linux runner.
  host_or(p)      a test or binary that transitions to platform `p` itself (qemu_test,
                  platform_binary, etarm_firmware): built and run in the host build and in
                  `--config=p`, skipped in every other cross config (which would otherwise
                  build it again in a configuration of its own).
  only_on(p)      the parts such a rule transitions (a firmware's image for one board): built
                  for `p` only, never for another board they would not fit.
"""

HOST = [
    "@platforms//os:linux",
    "@platforms//cpu:x86_64",
]

BARE_METAL = ["@platforms//os:none"]

LINUX = ["@platforms//os:linux"]

def _is_platform(platform):
    label = native.package_relative_label(platform)
    if label.package != "platforms":
        fail("%s is not a platform of //platforms" % platform)
    return Label("//platforms:is_" + label.name)

def host_or(platform):
    """Compatible with the host and with `platform` (a label in //platforms)."""
    return select({
        Label("//platforms:is_host"): [],
        _is_platform(platform): [],
        "//conditions:default": ["@platforms//:incompatible"],
    })

def only_on(platform):
    """Compatible with `platform` (a label in //platforms) alone."""
    return select({
        _is_platform(platform): [],
        "//conditions:default": ["@platforms//:incompatible"],
    })
