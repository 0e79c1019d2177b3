"""Several test cases of one operator compiled as ONE module, each case checked on its own.

A compile costs about a second, so an operator's tests put their configurations (shapes,
edge values, dtypes, operand kinds) into one module: every case is a function of its own
inputs with its own output(s), so the cases do not interact. ``assert_close_to_torch``
runs the partition on the TOSA reference model and compares each case with torch eager at
the case's tolerance; ``assert_quantized_close`` quantizes through the real flow (PT2E)
and bounds each case's error in output steps (LSB). A failure names the case.

    cases = Cases()
    for shape in [(7,), (2, 3)]:
        cases.add(f"exp {shape}", torch.exp, torch.randn(shape))
    cases.add("exp fp16", torch.exp, torch.randn(4).half(), atol=2e-3, rtol=2e-3)
    run = cases.assert_close_to_torch()

A case's function must compute something: one returning an input unchanged has no
partition output.
"""

from __future__ import annotations

import dataclasses
from typing import Callable

import torch

from etarm.testing.quantized_reference import QuantizedRun, lower_and_run_quantized
from etarm.testing.tosa_reference import LoweredRun, assert_matches, lower_and_run


@dataclasses.dataclass(frozen=True)
class Case:
    name: str
    fn: Callable
    first: int  # the case's first input, in the module's inputs
    count: int  # how many inputs it reads
    atol: float
    rtol: float
    max_lsb: float


def _flat(result) -> list:
    return list(result) if isinstance(result, (tuple, list)) else [result]


class PackedModule(torch.nn.Module):
    """Every case's outputs, in the order the cases were added (each case's flattened)."""

    def __init__(self, cases: list[Case]):
        super().__init__()
        self.cases = cases

    def forward(self, *inputs):
        outputs = []
        for case in self.cases:
            outputs.extend(_flat(case.fn(*inputs[case.first : case.first + case.count])))
        return tuple(outputs)


class Cases:
    def __init__(self):
        self.cases: list[Case] = []
        self.inputs: list[torch.Tensor] = []

    def add(self, name: str, fn: Callable, *inputs: torch.Tensor, atol=1e-5, rtol=1e-5, max_lsb=1.0) -> Cases:
        """``fn(*inputs)`` as one more case; ``atol``/``rtol`` bound it on FP, ``max_lsb`` on INT."""
        assert all(case.name != name for case in self.cases), f"two cases named {name}"
        # Copies: a tensor shared by two cases would be one module input read twice.
        self.inputs.extend(t.clone() for t in inputs)
        self.cases.append(Case(name, fn, len(self.inputs) - len(inputs), len(inputs), atol, rtol, max_lsb))
        return self

    def module(self) -> PackedModule:
        return PackedModule(list(self.cases))

    def outputs_of(self, name: str) -> list[int]:
        """The indices of case ``name``'s outputs among the module's."""
        index = 0
        with torch.no_grad():
            for case in self.cases:
                count = len(_flat(case.fn(*self.inputs[case.first : case.first + case.count])))
                if case.name == name:
                    return list(range(index, index + count))
                index += count
        raise KeyError(name)

    def _labels(self) -> list[tuple[Case, str]]:
        """(case, label) for every module output."""
        labels = []
        with torch.no_grad():
            for case in self.cases:
                count = len(_flat(case.fn(*self.inputs[case.first : case.first + case.count])))
                labels += [(case, case.name if count == 1 else f"{case.name} (output {k})") for k in range(count)]
        return labels

    def assert_close_to_torch(self, target: str = "TOSA-1.0+FP") -> LoweredRun:
        """One partition holding every case; each output within its case's tolerance of torch."""
        run = lower_and_run(self.module(), tuple(self.inputs), target)
        labels = self._labels()
        assert len(run.tosa_outputs) == len(run.torch_outputs) == len(labels)
        failures = []
        for (case, label), got, want in zip(labels, run.tosa_outputs, run.torch_outputs):
            try:
                assert_matches(got, want, case.atol, case.rtol)
            except AssertionError as error:
                failures.append(f"{label}: {error}")
        assert not failures, "\n".join(failures)
        return run

    def assert_quantized_close(self, target: str = "TOSA-1.0+INT", quantizer=None) -> QuantizedRun:
        """Quantized through the real flow: each output within its case's ``max_lsb`` of the
        convert_pt2e'd model in eager (integer and bool outputs: equal)."""
        run = lower_and_run_quantized(self.module(), tuple(self.inputs), target, quantizer=quantizer)
        labels = self._labels()
        assert len(run.dequantized) == len(run.expected) == len(labels)
        failures = []
        for (case, label), got, want, error in zip(labels, run.dequantized, run.expected, run.lsb_errors()):
            if got.shape != want.shape:
                failures.append(f"{label}: shape {tuple(got.shape)} != torch {tuple(want.shape)}")
            # A hair over an integer count of steps is float rounding of equal grids.
            elif error > case.max_lsb + 1e-3:
                failures.append(f"{label}: differs by {error:.3f} LSB (allowed {case.max_lsb})")
        assert not failures, "\n".join(failures)
        return run
