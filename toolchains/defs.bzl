"""Building one target for another platform inside a host build.

`platform_transition` sets --platforms from a rule's `platform` attribute; rules that need a
cross-compiled dependency (the simulator tests in //tests/sim:defs.bzl, etarm_firmware)
put it on that attribute. `platform_binary` is the plain version: it exposes `binary`,
built for `platform`, under its own name, so `bazel build //pkg:hello_m55` yields the ELF
without any --config; it is built in host builds and in its platform's config only
(//platforms:compat.bzl). `host_transition` goes the other way, for host-made inputs.
"""

load("//platforms:compat.bzl", "host_or")

def _platform_transition_impl(_settings, attr):
    return {"//command_line_option:platforms": str(attr.platform)}

platform_transition = transition(
    implementation = _platform_transition_impl,
    inputs = [],
    outputs = ["//command_line_option:platforms"],
)

def _host_transition_impl(settings, _attr):
    return {"//command_line_option:platforms": [settings["//command_line_option:host_platform"]]}

# Back to the host platform, for platform-independent files a cross build needs but only the
# host can make (a .pte from //:etarm). In a host build that is the host's own
# configuration, so such a file is made once whichever board's image embeds it; the
# --config=<board> builds share another one (the same change from each of them).
host_transition = transition(
    implementation = _host_transition_impl,
    inputs = ["//command_line_option:host_platform"],
    outputs = ["//command_line_option:platforms"],
)

def transitioned_executable(ctx, attr_name = "binary"):
    """(target, executable File) of an attribute that used platform_transition."""
    target = getattr(ctx.attr, attr_name)
    if type(target) == type([]):  # a 1:1 transition still yields a list
        target = target[0]
    executable = target[DefaultInfo].files_to_run.executable
    if executable == None:
        files = target[DefaultInfo].files.to_list()
        if len(files) != 1:
            fail("%s: %s must be one executable (a cc_binary)" % (ctx.label, attr_name))
        executable = files[0]
    return target, executable

def _platform_binary_impl(ctx):
    target, executable = transitioned_executable(ctx)
    out = ctx.actions.declare_file(ctx.attr.out or ctx.label.name)
    ctx.actions.symlink(output = out, target_file = executable, is_executable = True)
    return [DefaultInfo(
        files = depset([out]),
        executable = out,
        runfiles = ctx.runfiles(files = [out]).merge(target[DefaultInfo].default_runfiles),
    )]

_platform_binary = rule(
    implementation = _platform_binary_impl,
    attrs = {
        "binary": attr.label(mandatory = True, cfg = platform_transition, doc = "A cc_binary."),
        "platform": attr.label(mandatory = True, doc = "The platform to build it for."),
        "out": attr.string(doc = "Output file name (default: the target's name)."),
        "_allowlist_function_transition": attr.label(
            default = "@bazel_tools//tools/allowlists/function_transition_allowlist",
        ),
    },
    executable = True,
    doc = "`binary` built for `platform` (e.g. an ELF for //platforms:corstone300).",
)

def platform_binary(name, binary, platform, **kwargs):
    """`binary` built for `platform` under the name `name` (see _platform_binary)."""
    _platform_binary(
        name = name,
        binary = binary,
        platform = platform,
        target_compatible_with = host_or(platform),
        **kwargs
    )
