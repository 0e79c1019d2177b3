"""max_kernels_test: a test program built with --//runtime/core:max_kernels set to a value.

Checks that the build setting sizes the kernel table. The program gets the capacity as its
first argument.
"""

def _max_kernels_transition_impl(_settings, attr):
    return {"//runtime/core:max_kernels": attr.max_kernels}

_max_kernels_transition = transition(
    implementation = _max_kernels_transition_impl,
    inputs = [],
    outputs = ["//runtime/core:max_kernels"],
)

def _max_kernels_test_impl(ctx):
    binary = ctx.attr.binary[0][DefaultInfo]
    program = binary.files_to_run.executable
    script = ctx.actions.declare_file(ctx.label.name + ".sh")
    ctx.actions.write(script, "#!/bin/sh\nexec ./%s %d \"$@\"\n" % (program.short_path, ctx.attr.max_kernels), is_executable = True)
    return [DefaultInfo(
        executable = script,
        runfiles = ctx.runfiles(files = [program]).merge(binary.default_runfiles),
    )]

max_kernels_test = rule(
    implementation = _max_kernels_test_impl,
    attrs = {
        "binary": attr.label(mandatory = True, cfg = _max_kernels_transition, doc = "A cc_binary on //runtime/core."),
        "max_kernels": attr.int(mandatory = True),
        "_allowlist_function_transition": attr.label(
            default = "@bazel_tools//tools/allowlists/function_transition_allowlist",
        ),
    },
    test = True,
)
