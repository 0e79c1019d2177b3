"""Analysis tests: the cross toolchains' compile and link actions take the compiler's files
(or the stamp standing for them) as inputs, so a new compiler makes them run again."""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts")

def _impl(ctx):
    env = analysistest.begin(ctx)
    target = analysistest.target_under_test(env)
    actions = [a for a in analysistest.target_actions(env) if a.mnemonic in ["CppCompile", "CppLink"]]
    asserts.true(env, len(actions) > 0, "no compile or link actions")
    for action in actions:
        paths = [f.path for f in action.inputs.to_list()]
        asserts.true(
            env,
            [p for p in paths if p.endswith(ctx.attr.tool_input)] != [],
            "%s of %s lacks an input ending in %s" % (action.mnemonic, target.label, ctx.attr.tool_input),
        )
    return analysistest.end(env)

def _tool_inputs_test(platform):
    return analysistest.make(
        _impl,
        attrs = {"tool_input": attr.string(mandatory = True)},
        config_settings = {"//command_line_option:platforms": str(Label(platform))},
    )

arm_none_eabi_tool_inputs_test = _tool_inputs_test("//platforms:corstone300")
zig_tool_inputs_test = _tool_inputs_test("//platforms:linux_aarch64_musl")
gcc_aarch64_linux_gnu_tool_inputs_test = _tool_inputs_test("//platforms:linux_aarch64_glibc")
