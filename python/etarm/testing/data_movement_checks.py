"""The cases data-movement ops are tested on (tests/operators/test_<op>.py of view,
permute, squeeze, unsqueeze, flip, cat, slice, expand, repeat, ...).

Data movement is exact: the tolerance is zero. Each operator puts its cases into one
compile (``packed_cases.Cases``).
"""

from __future__ import annotations

from typing import Callable

import torch

from etarm.testing.packed_cases import Cases
from etarm.testing.tosa_reference import LoweredRun

# Odd sizes and size-1 axes, rank 1 to 5.
LAYOUT_SHAPES = [(7,), (3, 1), (2, 1, 5), (1, 3, 1, 4), (2, 3, 1, 2, 3)]
# The dtypes data movement carries, with the target naming their profile.
DTYPE_TARGETS = {"TOSA-1.0+FP": (torch.bool, torch.float16), "TOSA-1.0+FP+INT": (torch.int32, torch.int8)}


def layout_cases(fns_of: Callable[[torch.Tensor], dict[str, Callable]], keep_same_shape: bool = False) -> Cases:
    """``fns_of(x)``'s functions of ``x`` for an ``x`` of every shape of ``LAYOUT_SHAPES``.
    Views and transposes that keep the shape are no-ops removed before partitioning (they
    would be no partition outputs), so they are left out unless ``keep_same_shape``."""
    cases = Cases()
    for shape in LAYOUT_SHAPES:
        torch.manual_seed(len(shape))
        x = torch.randn(shape)
        for name, fn in fns_of(x).items():
            if keep_same_shape or fn(x).shape != x.shape:
                cases.add(f"{name} {shape}", fn, x, atol=0, rtol=0)
    return cases


def exact_cases(fns: dict[str, Callable], *inputs: torch.Tensor, cases: Cases | None = None) -> Cases:
    """Every function of ``fns`` of ``inputs``, compared with zero tolerance."""
    cases = cases if cases is not None else Cases()
    for name, fn in fns.items():
        cases.add(name, fn, *inputs, atol=0, rtol=0)
    return cases


def assert_tiles_exact(fns: dict[str, Callable], rank0_fns: dict[str, Callable]) -> LoweredRun:
    """``fns`` of a (3, 1, 5) tensor and ``rank0_fns`` of a 0-d tensor (TOSA TILE), in one
    compile: exact."""
    cases = exact_cases(fns, torch.randn(3, 1, 5))
    return exact_cases(rank0_fns, torch.tensor(1.5), cases=cases).assert_close_to_torch()


def assert_dtypes_move_exactly(fn: Callable, target: str) -> LoweredRun:
    """``fn`` of bool and float16 data (FP) or int32 and int8 data (FP+INT): exact."""
    cases = Cases()
    for dtype in DTYPE_TARGETS[target]:
        cases.add(str(dtype), fn, torch.randint(-5, 5, (2, 3, 4)).to(dtype), atol=0, rtol=0)
    return cases.assert_close_to_torch(target)
