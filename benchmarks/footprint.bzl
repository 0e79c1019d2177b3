"""footprint_image(): a bare-metal ELF linked with a GNU ld map file, for //benchmarks:footprint.

    footprint_image(
        name = "mlp_image",
        deps = [":mlp_fw_model", "//runtime/runner", ...],   # what the image links
        platform = "//platforms:corstone300",
    )

writes `mlp_image.elf` and `mlp_image.map` (`-Wl,-Map`): the map names the archive member
every input section of the image came from, which is how footprint.py splits each output
section by component. A cc_binary cannot declare the map as an output, hence this rule: it
links the same CcInfo through cc_common.link.

Everything is built for `platform` with the toolchain's `size_optimized` feature (-Os for
compiling and linking, picolibc's size-optimised library variants), the configuration the
footprint goal is stated for.
"""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")

def _size_optimized_transition_impl(settings, attr):
    features = list(settings["//command_line_option:features"])
    if "size_optimized" not in features:
        features.append("size_optimized")
    return {
        "//command_line_option:platforms": str(attr.platform),
        "//command_line_option:features": features,
    }

_size_optimized_transition = transition(
    implementation = _size_optimized_transition_impl,
    inputs = ["//command_line_option:features"],
    outputs = [
        "//command_line_option:platforms",
        "//command_line_option:features",
    ],
)

def _footprint_image_impl(ctx):
    cc_toolchain = find_cpp_toolchain(ctx)
    feature_configuration = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )
    map_file = ctx.actions.declare_file(ctx.label.name + ".map")
    linking_outputs = cc_common.link(
        actions = ctx.actions,
        name = ctx.label.name + ".elf",
        feature_configuration = feature_configuration,
        cc_toolchain = cc_toolchain,
        linking_contexts = [dep[CcInfo].linking_context for dep in ctx.attr.deps],
        user_link_flags = ["-Wl,-Map=" + map_file.path],
        additional_outputs = [map_file],
        output_type = "executable",
    )
    elf = linking_outputs.executable
    return [DefaultInfo(files = depset([elf, map_file]))]

footprint_image = rule(
    implementation = _footprint_image_impl,
    cfg = _size_optimized_transition,
    attrs = {
        "deps": attr.label_list(providers = [CcInfo], doc = "cc_libraries the image links (alwayslink ones for main())."),
        "platform": attr.label(default = "//platforms:corstone300", doc = "The board to build for."),
        "_allowlist_function_transition": attr.label(
            default = "@bazel_tools//tools/allowlists/function_transition_allowlist",
        ),
    },
    fragments = ["cpp"],
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
    doc = "An ELF and its linker map, built for `platform` at -Os (size_optimized).",
)
