"""The operands comparisons, logical and bitwise ops, where and shifts are tested on
(tests/operators/test_<op>.py of eq, gt, where, logical_and, bitwise_and, rshift, ...),
and the cases of tril and triu (a SELECT with a constant mask).

FP: every function sees three broadcasting pairs rounded to halves (so equal elements
occur) and every pair of +-0, +-inf and NaN (``comparison_cases``, one compile).

INT (quantized models): every result is exact (0 LSB, equal bools). Two tensors share
their quantization parameters (the quantizer's choice), so their integers compare like
their real values; a tensor and a number compare the integers with bounds found by
dequantizing every integer of the type as the quantized model does, even where the number
falls between two quantization steps or on one.
"""

from __future__ import annotations

from typing import Callable

import torch

from etarm.testing.cpu_fallback import Fn
from etarm.testing.many_ops import assert_each_close_to_torch
from etarm.testing.packed_cases import Cases
from etarm.testing.partition_report import aten_ops
from etarm.testing.quantized_reference import QuantizedRun, assert_quantized_close
from etarm.testing.tosa_reference import LoweredRun

COMPARISON_SHAPES = [((7,), (7,)), ((2, 1, 4), (3, 1)), ((1, 2, 3, 2, 3), (2, 1, 1, 3))]
SPECIAL = [0.0, -0.0, 0.5, -1.0, 1.0, float("inf"), -float("inf"), float("nan")]
INT32_EDGES = [-2147483647, -2147483646, -2147483520, -1, 0, 1, 16777216, 16777217, 2147483519, 2147483520, 2147483647]
QUANTIZED_TARGETS = ["TOSA-1.0+INT", "TOSA-1.0+INT+int16"]
NUMBERS = {"zero": 0.0, "between": 0.3, "negative": -1.7, "above": 5.0, "below": -9.0}


def comparison_cases(fns: dict[str, Callable]) -> Cases:
    """Every function of ``fns`` (of two tensors) on the random pairs and the special values."""
    cases = Cases()
    for shapes in COMPARISON_SHAPES:
        torch.manual_seed(len(shapes[0]))
        a, b = (torch.round(torch.randn(s) * 2) / 2 for s in shapes)
        for name, fn in fns.items():
            cases.add(f"{name} {shapes[0]} by {shapes[1]}", fn, a, b)
    # NaN compares unequal to everything (ne is true).
    values = torch.tensor(SPECIAL)
    for name, fn in fns.items():
        cases.add(f"{name} of special values", fn, values.reshape(-1, 1), values.reshape(1, -1))
    return cases


TRIANGLE_SHAPES = [(5, 5), (3, 4, 6), (2, 1, 6, 3)]


def assert_triangles_close(op: str, fn: Callable, diagonals: tuple, others: dict[str, Callable]) -> LoweredRun:
    """``fn(x, d)`` (torch.tril or torch.triu, registry name ``aten.<op>.default``, lowered
    whole) for each diagonal ``d`` of ``diagonals``, and each function of ``others``, of a
    seeded ``x`` of every shape of ``TRIANGLE_SHAPES``, in one compile."""
    cases = Cases()
    for shape in TRIANGLE_SHAPES:
        torch.manual_seed(10)
        x = torch.randn(shape)
        for d in diagonals:
            cases.add(f"{op}({d}) {shape}", lambda t, d=d: fn(t, d), x)
        for name, other in others.items():
            cases.add(f"{name} {shape}", other, x)
    run = cases.assert_close_to_torch()
    assert f"aten.{op}.default" in aten_ops(run)
    return run


def mixed_dtype_operands() -> tuple[torch.Tensor, torch.Tensor]:
    """An int32 and a float tensor: promoted as torch promotes them."""
    return torch.tensor([[1, -2, 3]], dtype=torch.int32), torch.tensor([[0.5], [1.0], [-2.0]])


def int32_edge_operands() -> tuple[torch.Tensor, torch.Tensor]:
    """Every pair of values near 0, 2**24 and the int32 limits (neighbours float32 cannot tell apart)."""
    values = torch.tensor(INT32_EDGES, dtype=torch.int32)
    return values.reshape(-1, 1), values.reshape(1, -1)


def int32_shift_operands() -> tuple[torch.Tensor, torch.Tensor]:
    x = torch.tensor([[-2147483647, -1000, -7, -1, 0, 1, 7, 1000, 2147483647]], dtype=torch.int32)
    s = torch.tensor([[0], [1], [5], [30]], dtype=torch.int32)
    return x, s


def int32_bitwise_operands() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Two int32 tensors and shift amounts in [0, 31)."""
    torch.manual_seed(8)
    a = torch.randint(-50, 50, (3, 5), dtype=torch.int32)
    b = torch.randint(-50, 50, (5,), dtype=torch.int32)
    s = torch.randint(0, 31, (3, 5), dtype=torch.int32)
    return a, b, s


# --- INT -------------------------------------------------------------------------------------------


def quantized_operands() -> tuple[torch.Tensor, torch.Tensor]:
    """Two tensors with some exact ties."""
    torch.manual_seed(31)
    a = torch.randn(2, 3, 5)
    b = torch.where(torch.rand(3, 5) < 0.3, a[0], torch.randn(3, 5))
    return a, b


def every_level_input(target: str) -> torch.Tensor:
    """An input taking every integer of its quantized type, so each bound is checked where it lies."""
    levels = 1 << (8 if target == "TOSA-1.0+INT" else 16)
    return torch.linspace(-6, 6, 2 * levels).reshape(2, -1, 4)


def assert_compared_with_numbers(compare: Callable, target: str) -> QuantizedRun:
    """``compare(x, number)`` for every number of ``NUMBERS``: equal to the quantized model."""
    cases = Cases()
    for name, number in NUMBERS.items():
        cases.add(name, lambda x, number=number: compare(x, number), every_level_input(target), max_lsb=0)
    return cases.assert_quantized_close(target)


INT32_TARGETS = ["TOSA-1.0+FP", "TOSA-1.0+FP+INT"]


def assert_int32_comparisons(fns: dict[str, Callable], target: str):
    """``fns`` of every pair of ``INT32_EDGES``: with the INT profile native; on FP alone
    composed exactly (int_math), also for neighbours float32 cannot tell apart."""
    return assert_each_close_to_torch(fns, int32_edge_operands(), target=target)


def assert_quantized_comparison(compare: Callable, target: str) -> QuantizedRun:
    """``compare`` of two quantized tensors with some exact ties: equal to the quantized model."""
    return assert_quantized_close(Fn(compare), quantized_operands(), target=target, max_lsb=0)


# The quantized checks every comparison (eq, ne, gt, ge, lt, le) passes, by id: (check, target),
# ``check(compare, target)`` of two quantized tensors, or of a quantized tensor and numbers.
QUANTIZED_CHECKS = {
    f"{operands}-{target}": (check, target)
    for operands, check in [("tensors", assert_quantized_comparison), ("with_a_number", assert_compared_with_numbers)]
    for target in QUANTIZED_TARGETS
}
