"""Compiles a function of some inputs and reports why nodes stayed on CPU (``report["cpu_ops"]``)."""

from __future__ import annotations

from typing import Callable

import torch

from etarm.compiler import compile_model


class Fn(torch.nn.Module):
    """A function of the inputs as a module, so torch.export can trace it."""

    def __init__(self, fn: Callable):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


def cpu_reasons(fn: Callable, inputs: tuple, target: str = "TOSA-1.0+FP") -> list[str]:
    """The reasons of every node the compile of ``fn(*inputs)`` left on CPU."""
    return [entry["reason"] for entry in compile_model(Fn(fn), inputs, target).report["cpu_ops"]]


def cpu_reason(fn: Callable, inputs: tuple, op: str, target: str = "TOSA-1.0+FP") -> str:
    """Why the compile left the one node of operator ``op`` (e.g. 'aten.permute_copy') on CPU."""
    report = compile_model(Fn(fn), inputs, target).report
    (reason,) = [entry["reason"] for entry in report["cpu_ops"] if entry["op"].startswith(op + ".")]
    return reason


def cpu_ops(fn: Callable, inputs: tuple, target: str = "TOSA-1.0+FP") -> list[tuple[str, str]]:
    """(operator, reason) of every node the compile of ``fn(*inputs)`` left on CPU."""
    return [(entry["op"], entry["reason"]) for entry in compile_model(Fn(fn), inputs, target).report["cpu_ops"]]
