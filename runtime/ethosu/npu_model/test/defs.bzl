"""Reference cases for the NPU model: models compiled by etarm for an Ethos-U target, with
the TOSA reference model's outputs (make_case.py)."""

load("//platforms:compat.bzl", "HOST")

# Models per build action: importing torch and etarm costs more than compiling a small model.
_BATCH = 8

def case_name(model, target):
    """conv2d, ethos-u55-128 -> conv2d_u55_128; conv2d:a16w8 -> conv2d_a16w8_u55_128"""
    return model.replace(":", "_") + "_" + target.replace("ethos-", "").replace("-", "_")

def npu_cases(name, models, target):
    """Genrules writing `<case_name(model, target)>.case` for every model; returns their labels."""
    labels = []
    for start in range(0, len(models), _BATCH):
        batch = models[start:start + _BATCH]
        outs = [case_name(m, target) + ".case" for m in batch]
        native.genrule(
            name = "%s_%d" % (name, start // _BATCH),
            testonly = True,
            outs = outs,
            cmd = "$(execpath :make_case) %s %s > $(RULEDIR)/%s_%d.log 2>&1 || (cat $(RULEDIR)/%s_%d.log; exit 1)" % (
                target,
                " ".join(["%s=$(location %s)" % (m, o) for m, o in zip(batch, outs)]),
                name,
                start // _BATCH,
                name,
                start // _BATCH,
            ),
            message = "NPU model cases: %s for %s through etarm and the TOSA reference model" % (", ".join(batch), target),
            target_compatible_with = HOST,
            tools = [":make_case"],
        )
        labels += [":" + o for o in outs]
    return labels
