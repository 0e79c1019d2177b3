"""What the C++ runtime's packages share: compiler options and the library rule."""

load("@rules_cc//cc:defs.bzl", "cc_library")

# Code that also runs on the boards: no exceptions and no RTTI (nothing there unwinds or
# asks for a type at run time; both only cost flash).
FREESTANDING_COPTS = [
    "-fno-exceptions",
    "-fno-rtti",
]

def runtime_cc_library(name, deps = [], **kwargs):
    """A cc_library written against ExecuTorch's runtime headers (their names as
    runtime/executorch_names.h declares them) that also runs on the boards."""
    cc_library(
        name = name,
        copts = FREESTANDING_COPTS,
        deps = deps + [
            Label("//runtime:executorch_names"),
            Label("@executorch_wheel//:headers"),
        ],
        **kwargs
    )
