"""etarm_package: the py_library of one package of python/etarm."""

load("@pypi//:requirements.bzl", "requirement")
load("@rules_python//python:defs.bzl", "py_library")

def etarm_package(deps = [], requirements = [], data = [], testonly = False):
    """Every .py below the package, in one library named after the package.

    deps: the etarm libraries its modules import (tests/architecture checks them).
    requirements: the pinned PyPI packages it imports.
    data: files its modules load at run time (e.g. an extension module).
    """
    py_library(
        name = native.package_name().rpartition("/")[2],
        srcs = native.glob(["**/*.py"]),
        data = data,
        imports = ["../.."],
        deps = deps + [requirement(r) for r in requirements],
        testonly = testonly,
        visibility = ["//visibility:public"],
    )

    # tests/architecture reads every package's BUILD file to check its deps against its imports.
    native.exports_files(["BUILD.bazel"], visibility = ["//tests/architecture:__pkg__"])
