"""etarm_pytest_suite: one py_test per test_*.py file, or one for all of them (grouped), run through pytest."""

load("@pypi//:requirements.bzl", "requirement")
load("@rules_python//python:defs.bzl", "py_test")
load("//platforms:compat.bzl", "HOST")

def etarm_pytest_suite(name, srcs, deps = [], data = [], env = {}, size = "medium", tags = [], per_file = {}, grouped = False, shard_count = None):
    """Declares a py_test for each file in srcs and a test_suite `name` over them.

    per_file maps a file name to a dict of attributes overriding size/tags/shard_count for it.

    grouped = True declares instead ONE py_test `name` running every file of srcs: one Python
    start-up (~5 s of imports) for the whole folder instead of one per file. shard_count
    splits it into that many Bazel shards, each running a contiguous slice of the collected
    tests (tests/pytest_main.py); per_file does not apply. One file or one op's cases:
    `bazel test //tests/operators --test_arg=-k --test_arg=softmax`.

    The tests run on the host's Python only: `--config=<board>` builds and tests skip them.
    """
    common = dict(deps = deps, data = data, env = env)
    if grouped:
        _pytest(name, srcs, size = size, tags = tags, shard_count = shard_count, **common)
        return
    tests = []
    for src in srcs:
        overrides = per_file.get(src, {})
        _pytest(
            src[:-len(".py")],
            [src],
            size = overrides.get("size", size),
            tags = overrides.get("tags", tags),
            shard_count = overrides.get("shard_count", None),
            **common
        )
        tests.append(src[:-len(".py")])
    native.test_suite(name = name, tests = tests)

def _pytest(name, srcs, deps, data, env, size, tags, shard_count):
    py_test(
        name = name,
        srcs = srcs + ["//tests:pytest_main.py"],
        main = "//tests:pytest_main.py",
        args = ["$(rootpath %s)" % src for src in srcs],
        data = data + ["//:pytest.ini"],
        env = env,
        deps = deps + [
            "//python/etarm",
            "//python/etarm/testing",
            requirement("pytest"),
            requirement("hypothesis"),
        ],
        size = size,
        tags = tags,
        shard_count = shard_count,
        target_compatible_with = HOST,
    )
