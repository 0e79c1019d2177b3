"""etarm_wheel: a wheel of the Python sources under one package of some py_library deps, plus
its extension modules (then the wheel is for one interpreter and platform: `tag`)."""

def _etarm_wheel_impl(ctx):
    prefix = ctx.attr.strip_prefix + "/" + ctx.attr.package + "/"
    sources = depset(transitive = [dep[PyInfo].transitive_sources for dep in ctx.attr.deps]).to_list()
    files = [f for f in sources if f.short_path.startswith(prefix)] + ctx.files.extensions
    if not files:
        fail("no files under %s in deps" % prefix)
    if ctx.files.extensions and ctx.attr.tag == "py3-none-any":
        fail("a wheel with extension modules needs its interpreter and platform tag")
    wheel = ctx.actions.declare_file("%s-%s-%s.whl" % (ctx.attr.distribution, ctx.attr.version, ctx.attr.tag))
    args = ctx.actions.args()
    args.add("--out", wheel)
    args.add("--distribution", ctx.attr.distribution)
    args.add("--version", ctx.attr.version)
    args.add("--summary", ctx.attr.summary)
    args.add("--python_requires", ctx.attr.python_requires)
    args.add("--tag", ctx.attr.tag)
    args.add("--description_file", ctx.file.description_file)
    args.add_all(ctx.attr.requires, before_each = "--requires")
    args.add_all(["%s=%s" % item for item in ctx.attr.console_scripts.items()], before_each = "--console_script")
    args.add_all(
        ["%s=%s" % (f.short_path[len(ctx.attr.strip_prefix) + 1:], f.path) for f in files],
        before_each = "--file",
    )
    ctx.actions.run(
        executable = ctx.executable._builder,
        arguments = [args],
        inputs = files + [ctx.file.description_file],
        outputs = [wheel],
        mnemonic = "EtarmWheel",
        progress_message = "Writing %s" % wheel.short_path,
    )
    return [DefaultInfo(files = depset([wheel]))]

etarm_wheel = rule(
    implementation = _etarm_wheel_impl,
    attrs = {
        "deps": attr.label_list(providers = [PyInfo], doc = "py_library targets whose sources the wheel holds"),
        "extensions": attr.label_list(allow_files = [".so"], doc = "extension modules, placed by their source path"),
        "tag": attr.string(default = "py3-none-any", doc = "python-abi-platform tag (PEP 425)"),
        "package": attr.string(mandatory = True, doc = "the top-level Python package to ship"),
        "strip_prefix": attr.string(mandatory = True, doc = "the folder holding the package (its import root)"),
        "distribution": attr.string(mandatory = True),
        "version": attr.string(mandatory = True),
        "summary": attr.string(mandatory = True),
        "python_requires": attr.string(mandatory = True),
        "requires": attr.string_list(doc = "Requires-Dist lines"),
        "console_scripts": attr.string_dict(doc = "command name -> module:function"),
        "description_file": attr.label(allow_single_file = True, mandatory = True),
        "_builder": attr.label(default = "//python/wheel:build_wheel", executable = True, cfg = "exec"),
    },
)
