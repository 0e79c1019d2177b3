"""The Vulkan environment of programs that run VGF graphs on the host (tests, runners).

    load("//runtime/vgf:defs.bzl", "vgf_cc_test")
    vgf_cc_test(name = "x_test", srcs = ["x_test.cc"], deps = [...])

runs an etarm_cc_test on lavapipe (Mesa's CPU Vulkan driver, installed into the Bazel root
by ./bazelw) with the ML emulation layers from their PyPI wheel (:emulation_layers), and
with `validation = True` also with the Khronos validation layer. Nothing of the host's own
Vulkan set-up is used: the loader reads only these variables.
"""

load("//runtime/testing:defs.bzl", "etarm_cc_test")

LAVAPIPE_ICD = "/usr/share/vulkan/icd.d/lvp_icd.json"

# vulkan-validationlayers' manifest directory (in the Bazel root).
VALIDATION_LAYER_DIR = "/usr/share/vulkan/explicit_layer.d"

EMULATION_LAYERS = Label("//runtime/vgf:emulation_layers")

def vgf_test_env(validation = False):
    """The environment (a dict for `env`) that points the Vulkan loader at lavapipe and the
    emulation layers; the program needs //runtime/vgf:emulation_layers in its data."""
    layer_path = "$(rootpath %s)" % EMULATION_LAYERS
    if validation:
        layer_path += ":" + VALIDATION_LAYER_DIR
    return {
        "VK_DRIVER_FILES": LAVAPIPE_ICD,
        "VK_ICD_FILENAMES": LAVAPIPE_ICD,  # the loader's older name
        "VK_LAYER_PATH": layer_path,
        # Implicit layers found in the root (Mesa's device-select, anti-lag) stay out.
        "VK_LOADER_LAYERS_DISABLE": "~implicit~",
    }

def vgf_cc_test(name, data = [], env = {}, validation = False, **kwargs):
    """An etarm_cc_test that runs VGF graphs on lavapipe through the ML emulation layers."""
    etarm_cc_test(
        name = name,
        data = data + [EMULATION_LAYERS],
        env = dict(vgf_test_env(validation), **env),
        **kwargs
    )

def _emulation_layers_impl(ctx):
    out = ctx.actions.declare_directory(ctx.label.name)
    package = ctx.attr.package[DefaultInfo]
    files = package.files.to_list() + package.default_runfiles.files.to_list()
    manifests = [f for f in files if f.basename in ["VkLayer_Graph.json", "VkLayer_Tensor.json"]]
    libraries = [f for f in files if f.basename in ["libVkLayer_Graph.so", "libVkLayer_Tensor.so"]]
    if len(manifests) != 2 or len(libraries) != 2:
        fail("%s does not hold the two ML emulation layers (manifests %s, libraries %s)" % (ctx.attr.package.label, manifests, libraries))

    # The wheel's manifests name their library bare (found only on the loader's search
    # path): each copy names the library beside it.
    commands = ["cp %s %s/" % (lib.path, out.path) for lib in libraries]
    commands += [
        "sed 's#\"library_path\": \"\\([^\"/]*\\)\"#\"library_path\": \"./\\1\"#' %s > %s/%s" % (m.path, out.path, m.basename)
        for m in manifests
    ]
    commands += ["grep -q '\"library_path\": \"./libVkLayer_' %s/%s" % (out.path, m.basename) for m in manifests]
    ctx.actions.run_shell(
        inputs = manifests + libraries,
        outputs = [out],
        command = " && ".join(commands),
        mnemonic = "VulkanLayers",
        progress_message = "Rewriting the ML emulation layer manifests",
    )
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles([out]))]

emulation_layers = rule(
    implementation = _emulation_layers_impl,
    doc = "A directory with the ML emulation layers' .so files and manifests naming them " +
          "relatively: what VK_LAYER_PATH points at.",
    attrs = {"package": attr.label(
        mandatory = True,
        doc = "the ai-ml-emulation-layer-for-vulkan py_library, or a filegroup of the wheel's layer files",
    )},
)
