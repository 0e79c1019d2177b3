"""etarm_selected_kernels(): the kernels one program uses, for a firmware image that should link no others.

    load("//kernels:defs.bzl", "etarm_selected_kernels")

    etarm_selected_kernels(
        name = "kws_kernels",
        pte = ":kws.pte",
        kernels = ["//kernels/cortex_m:cortex_m_selective", "//kernels/portable:portable_selective"],
        platform = "//platforms:corstone300",
    )

`:kws_kernels` replaces the kernel libraries in the image's deps. The `_selective` libraries are the kernel
libraries built with ETARM_SELECTIVE_KERNELS: no kernel registers itself, so each op_<name>.o is linked only
if the generated registration (`etarm kernels kws.pte --registration`) calls its `etarm_kernel_...()`. A kernel
the program needs and the libraries lack fails the link with its name.
"""

load("//platforms:compat.bzl", "only_on")
load("//runtime:defs.bzl", "runtime_cc_library")
load("//toolchains:defs.bzl", "host_transition")

def _registration_impl(ctx):
    out = ctx.actions.declare_file(ctx.label.name + ".cc")
    ctx.actions.run(
        executable = ctx.executable._etarm,
        arguments = ["kernels", ctx.file.pte.path, "--registration", out.path],
        inputs = [ctx.file.pte],
        outputs = [out],
        use_default_shell_env = True,
        mnemonic = "EtarmKernels",
        progress_message = "Registering the kernels of %{label}",
    )
    return [DefaultInfo(files = depset([out]))]

_registration = rule(
    implementation = _registration_impl,
    attrs = {
        # A host-made file: one compile serves every board (as etarm_firmware's model).
        "pte": attr.label(mandatory = True, allow_single_file = [".pte", ".bpte"], cfg = host_transition),
        "_etarm": attr.label(default = "//:etarm", executable = True, cfg = "exec"),
        "_allowlist_function_transition": attr.label(
            default = "@bazel_tools//tools/allowlists/function_transition_allowlist",
        ),
    },
)

def etarm_selected_kernels(name, pte, kernels, platform = "//platforms:corstone300", **kwargs):
    """`name`: a cc_library registering the kernels `pte` (a .pte or .bpte) uses, from the `_selective` libraries in
    `kernels`, for the images of `platform` (a board of //platforms: other builds skip it, as etarm_firmware's
    parts)."""
    _registration(
        name = name + "_registration",
        pte = pte,
        target_compatible_with = only_on(platform),
        **kwargs
    )
    runtime_cc_library(
        name = name,
        srcs = [":" + name + "_registration"],
        alwayslink = True,
        target_compatible_with = only_on(platform),
        deps = kernels,
        **kwargs
    )

def etarm_kernel_library(name, srcs, deps = [], **kwargs):
    """A kernel library (one op_<name>.cc per operator) twice: `name`, whose kernels register themselves (linked
    whole), and `name + "_selective"`, whose kernels an etarm_selected_kernels registration picks (built only
    for an image that uses it)."""
    runtime_cc_library(
        name = name,
        srcs = srcs,
        alwayslink = True,
        deps = deps,
        **kwargs
    )
    runtime_cc_library(
        name = name + "_selective",
        srcs = srcs,
        local_defines = ["ETARM_SELECTIVE_KERNELS"],
        tags = ["manual"],
        deps = deps,
        **kwargs
    )
