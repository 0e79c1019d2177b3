"""Compiles several functions of the same inputs as ONE module (one compile, one partition)
and compares each output with torch, naming the function that differs."""

from __future__ import annotations

from typing import Callable

import torch

from etarm.compiler import CompileResult
from etarm.testing.tosa_reference import assert_matches, lower_and_run


class ManyOutputs(torch.nn.Module):
    def __init__(self, fns: list[Callable]):
        super().__init__()
        self.fns = fns

    def forward(self, *inputs):
        return tuple(fn(*inputs) for fn in self.fns)


def assert_each_close_to_torch(
    fns: dict[str, Callable], inputs: tuple, target: str = "TOSA-1.0+FP", atol=1e-5, rtol=1e-5
) -> CompileResult:
    """``fns`` maps a name to a function of ``inputs``; every output must match torch eager.

    A function must compute something: one returning an input unchanged has no partition output.
    """
    names = list(fns)
    run = lower_and_run(ManyOutputs([fns[n] for n in names]), inputs, target)
    failures = []
    for name, got, want in zip(names, run.tosa_outputs, run.torch_outputs):
        try:
            assert_matches(got, want, atol, rtol)
        except AssertionError as error:
            failures.append(f"{name}: {error}")
    assert not failures, "\n".join(failures)
    return run.result


def assert_each_exact(fns: dict[str, Callable], inputs: tuple, target: str = "TOSA-1.0+FP") -> CompileResult:
    """``assert_each_close_to_torch`` with zero tolerance (data movement and gathers are exact)."""
    return assert_each_close_to_torch(fns, inputs, target, atol=0, rtol=0)
