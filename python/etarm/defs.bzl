"""Bazel rules for compiling models with etarm as a build action."""

load("//platforms:compat.bzl", "HOST")

def etarm_pte(name, model, target = "TOSA-1.0+FP", quantize = False, delegate = True, bundleio = False, extra_args = [], model_deps = [], **kwargs):
    """Compiles `model` (a built-in model name or a label of a .py model file) into `<name>.pte`.

    Also writes `<name>.json`, the compile report. Changing the model file or etarm itself
    rebuilds the .pte (and whatever embeds it). `bundleio`: write `<name>.bpte` instead, the
    program with the example inputs and expected outputs (`etarm compile --bundleio`).
    """
    is_file = model.endswith(".py") or model.startswith(":") or model.startswith("//")
    model_arg = "$(location %s)" % model if is_file else model
    program = name + (".bpte" if bundleio else ".pte")
    args = ["compile", "-m", model_arg, "-t", target, "-o", "$(location %s)" % program, "--report", "$(location %s.json)" % name]
    if quantize:
        args.append("-q")
    if bundleio:
        args.append("--bundleio")
    if not delegate:
        args.append("--no-delegate")
    # The compiler runs on the host; firmware images get the .pte through their host transition.
    kwargs.setdefault("target_compatible_with", HOST)
    native.genrule(
        name = name,
        srcs = ([model] if is_file else []) + model_deps,
        outs = [program, name + ".json"],
        cmd = "$(execpath //:etarm) " + " ".join(args + extra_args) + " > /dev/null",
        tools = ["//:etarm"],
        message = "etarm: compiling %s for %s" % (model, target),
        **kwargs
    )
