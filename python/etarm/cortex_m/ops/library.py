"""The ``cortex_m`` operator library and how each op file registers itself in it.

Each op has a functional form (what the passes insert), an out variant (what ExecuTorch's
to_executorch turns it into and what the .pte names: ``cortex_m::quantized_add.out``), an
eager implementation (the integer semantics the C++ kernel must match bit for bit, so a
program with these ops still runs in Python) and a fake kernel (shapes and dtypes for export).

Convention: a quantized operand is followed by its zero point, multiplier and shift; the
multiplier and shift encode a real scale as ``multiplier * 2**(shift - 31)`` (CMSIS-NN's
convention), computed ahead of time (requantize.py). Values round once, half up (TOSA
RESCALE's SINGLE_ROUND); int16 ops use the top 15 bits of the multiplier (``rescale_s16``).
"""

from __future__ import annotations

from typing import Callable

import torch
from torch.library import Library

NAMESPACE = "cortex_m"
LIBRARY = Library(NAMESPACE, "DEF")
# The ops whose kernels the project writes (CMSIS-NN has none): the report says so.
WITHOUT_CMSIS_NN: set[str] = set()
# The ops whose int16 (a16w8) kernel is the project's while CMSIS-NN runs their int8 one.
WITHOUT_CMSIS_NN_INT16: set[str] = set()


def define(
    name: str, arguments: str, compute: Callable, fake: Callable, cmsis_nn: bool = True, cmsis_nn_int16: bool = True
) -> None:
    """Defines ``cortex_m::name(arguments) -> Tensor`` and its ``.out`` variant: ``compute`` is the
    eager integer semantics, ``fake`` gives the result's shape and dtype without computing it;
    ``cmsis_nn`` False for an op whose kernel is the project's own, ``cmsis_nn_int16`` False for one
    whose int16 kernel is."""
    if not cmsis_nn:
        WITHOUT_CMSIS_NN.add(name)
    if not cmsis_nn_int16:
        WITHOUT_CMSIS_NN_INT16.add(name)
    LIBRARY.define(f"{name}({arguments}) -> Tensor")
    LIBRARY.define(f"{name}.out({arguments}, *, Tensor(a!) out) -> Tensor(a!)")

    def compute_out(*args, out):
        result = compute(*args)
        out.resize_(result.shape)
        return out.copy_(result)

    LIBRARY.impl(name, compute, "CompositeExplicitAutograd")
    LIBRARY.impl(f"{name}.out", compute_out, "CompositeExplicitAutograd")
    torch.library.register_fake(f"{NAMESPACE}::{name}", fake, lib=LIBRARY)


def rescale(values: torch.Tensor, multiplier, shift) -> torch.Tensor:
    """int64 ``values * multiplier * 2**(shift - 31)``, rounded half up (one rounding); multiplier
    and shift are ints or int tensors broadcasting against ``values`` (per channel)."""
    right = 31 - torch.as_tensor(shift, dtype=torch.int64)
    half = torch.ones_like(right) << (right - 1)
    return (values.to(torch.int64) * torch.as_tensor(multiplier, dtype=torch.int64) + half) >> right


def saturation(dtype: torch.dtype) -> tuple[int, int]:
    """The range the kernels write an activation of ``dtype`` in: int8's; int16's without -32768 (a16w8 is
    symmetric, and -32768 squared overflows CMSIS-NN's MVE s16 multiply)."""
    limits = torch.iinfo(dtype)
    return (-limits.max, limits.max) if dtype == torch.int16 else (limits.min, limits.max)


def rescale_s16(values: torch.Tensor, multiplier, shift) -> torch.Tensor:
    """CMSIS-NN's int16 requantization (``arm_nn_requantize_s64`` after ``REDUCE_MULTIPLIER``): the multiplier
    rounded to its top 15 bits, ``values * reduced * 2**(shift - 15)`` rounded once, half up; the value is an int32
    after all but the last shift, as in C (so it wraps where the C does)."""
    m = torch.as_tensor(multiplier, dtype=torch.int64)
    reduced = torch.where(m < 0x7FFF0000, (m + (1 << 15)) >> 16, torch.full_like(m, 0x7FFF))
    shifted = (values.to(torch.int64) * reduced) >> (14 - torch.as_tensor(shift, dtype=torch.int64))
    return (shifted.to(torch.int32).to(torch.int64) + 1) >> 1
