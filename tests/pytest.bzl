"""etarm_pytest_suite: one py_test per test_*.py file, run through pytest."""

load("@pypi//:requirements.bzl", "requirement")
load("@rules_python//python:defs.bzl", "py_test")
load("//platforms:compat.bzl", "HOST")

def etarm_pytest_suite(name, srcs, deps = [], data = [], env = {}, size = "medium", tags = [], per_file = {}):
    """Declares a py_test for each file in srcs and a test_suite `name` over them.

    per_file maps a file name to a dict of attributes overriding size/tags/shard_count for it.
    The tests run on the host's Python only: `--config=<board>` builds and tests skip them.
    """
    tests = []
    for src in srcs:
        test_name = src[:-len(".py")]
        overrides = per_file.get(src, {})
        py_test(
            name = test_name,
            srcs = [src, "//tests:pytest_main.py"],
            main = "//tests:pytest_main.py",
            args = ["$(rootpath %s)" % src],
            data = data + ["//:pytest.ini"],
            env = env,
            deps = deps + [
                "//python/etarm",
                requirement("pytest"),
                requirement("hypothesis"),
            ],
            size = overrides.get("size", size),
            tags = overrides.get("tags", tags),
            shard_count = overrides.get("shard_count", None),
            target_compatible_with = HOST,
        )
        tests.append(test_name)
    native.test_suite(name = name, tests = tests)
