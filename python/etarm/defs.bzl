"""Bazel rules for compiling models with etarm as a build action."""

load("//platforms:compat.bzl", "HOST")

def etarm_pte(name, model, target = "TOSA-1.0+FP", quantize = False, delegate = True, extra_args = [], model_deps = [], **kwargs):
    """Compiles `model` (a built-in model name or a label of a .py model file) into `<name>.pte`.

    Also writes `<name>.json`, the compile report. Changing the model file or etarm itself
    rebuilds the .pte (and whatever embeds it).
    """
    is_file = model.endswith(".py") or model.startswith(":") or model.startswith("//")
    model_arg = "$(location %s)" % model if is_file else model
    args = ["compile", "-m", model_arg, "-t", target, "-o", "$(location %s.pte)" % name, "--report", "$(location %s.json)" % name]
    if quantize:
        args.append("-q")
    if not delegate:
        args.append("--no-delegate")
    # The compiler runs on the host; firmware images get the .pte through their host transition.
    kwargs.setdefault("target_compatible_with", HOST)
    native.genrule(
        name = name,
        srcs = ([model] if is_file else []) + model_deps,
        outs = [name + ".pte", name + ".json"],
        cmd = "$(execpath //:etarm) " + " ".join(args + extra_args) + " > /dev/null",
        tools = ["//:etarm"],
        message = "etarm: compiling %s for %s" % (model, target),
        **kwargs
    )
