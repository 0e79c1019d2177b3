"""Analysis test: etarm_firmware's assembly file is made from the embedded blobs' contents
(their digests), so a changed .pte or inputs file recompiles it: the compiler's dependency
file never names what .incbin reads."""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts")

def _impl(ctx):
    env = analysistest.begin(ctx)
    actions = [a for a in analysistest.target_actions(env) if a.mnemonic == "EmbedModel"]
    asserts.equals(env, 1, len(actions), "one action writes the assembly file")
    if actions:
        inputs = [f.basename for f in actions[0].inputs.to_list()]
        for blob in ctx.attr.blobs:
            asserts.true(env, blob in inputs, "the assembly file's action reads %s (inputs: %s)" % (blob, inputs))
        asserts.equals(env, [f.extension for f in actions[0].outputs.to_list()], ["S"])
    return analysistest.end(env)

embed_model_test = analysistest.make(_impl, attrs = {"blobs": attr.string_list(mandatory = True)})
