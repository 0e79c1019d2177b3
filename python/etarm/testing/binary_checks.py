"""The operands binary functions are tested on (tests/operators/test_<op>.py of add, sub,
mul, div, pow, remainder, fmod, maximum, minimum), and the checks they share.

FP: every function sees five broadcasting pairs of ranks 1-5 (``binary_cases``), and
the operator's own edge cases are added to the same compile (``packed_cases.Cases``).
INT: divisors of either sign away from zero, and the seeded operands of the exact
two-tensor lookups.
"""

from __future__ import annotations

from typing import Callable

import torch

from etarm.testing.cpu_fallback import Fn
from etarm.testing.packed_cases import Cases
from etarm.testing.quantized_reference import assert_quantized_close
from etarm.testing.quantizers import OwnParameters
from etarm.testing.tosa_reference import assert_close_to_torch

BROADCAST_SHAPES = [
    ((6,), (6,)),
    ((2, 3), (3,)),
    ((1, 4, 1), (3, 1, 5)),
    ((2, 1, 3, 1), (1, 5, 1, 2)),
    ((1, 2, 1, 3, 2), (2, 1, 3, 1, 1)),
]


def broadcast_pairs() -> dict[str, tuple[torch.Tensor, torch.Tensor]]:
    pairs = {}
    for shapes in BROADCAST_SHAPES:
        torch.manual_seed(len(shapes[0]))
        a, b = (torch.randn(s) * 3 for s in shapes)
        pairs[f"{shapes[0]} by {shapes[1]}"] = (a, b)
    return pairs


def binary_cases(fns: dict[str, Callable]) -> Cases:
    """Every function of ``fns`` (of two tensors) on every broadcasting pair."""
    cases = Cases()
    for pair_name, (a, b) in broadcast_pairs().items():
        for name, fn in fns.items():
            cases.add(f"{name} {pair_name}", fn, a, b)
    return cases


def scalar_operand_input() -> torch.Tensor:
    """The tensor a Python number divides, bounds or takes the remainder of."""
    torch.manual_seed(7)
    return torch.randn(3, 4) * 5


def division_edge_operands() -> tuple[torch.Tensor, torch.Tensor]:
    """Every pair of dividends (+-1, 0, inf, NaN, ...) and divisors (+-0, inf, ...)."""
    a = torch.tensor([1.0, -1.0, 0.0, float("inf"), 5.0, -7.5, float("nan"), 3.0]).reshape(-1, 1)
    b = torch.tensor([0.0, -0.0, 1.0, float("inf"), -2.0, 0.25]).reshape(1, -1)
    return a, b


def int32_division_operands() -> tuple[torch.Tensor, torch.Tensor]:
    """Mixed signs everywhere (floor and trunc differ exactly there) and the int32 limits."""
    a = torch.tensor([-7, -6, -5, -1, 0, 1, 5, 6, 7, 2147483647, -2147483647], dtype=torch.int32).reshape(-1, 1)
    b = torch.tensor([-3, -2, -1, 1, 2, 3, 7], dtype=torch.int32).reshape(1, -1)
    return a, b


def int32_extrema_operands() -> tuple[torch.Tensor, torch.Tensor]:
    """Values 1 apart near the int32 limits round to the same float32: the exact path decides."""
    a = torch.tensor([1, -5, 3, 2147483647, -2147483647, 2147483520, -2147483520], dtype=torch.int32)
    b = torch.tensor([0, 2, 3, 2147483646, -2147483646, 2147483519, 2147483520], dtype=torch.int32)
    return a, b


def rank0_operands() -> tuple[torch.Tensor, torch.Tensor]:
    return torch.tensor(0.7), torch.tensor(-1.5)


# --- INT -------------------------------------------------------------------------------------------


def divisor(*shape) -> torch.Tensor:
    """Values of either sign, at least 0.4 away from zero."""
    magnitude = torch.rand(shape) * 1.6 + 0.4
    return torch.where(torch.rand(shape) < 0.5, -magnitude, magnitude)


TWO_TENSOR_SHAPES = {"rank3_broadcast": ((2, 3, 4), (4,)), "rank1": ((5,), (5,))}


def two_tensor_operands(a_shape, b_shape) -> tuple[torch.Tensor, torch.Tensor]:
    """The operands of the int8 functions of two tensors that index a table of every pair of values."""
    torch.manual_seed(24)
    return torch.randn(a_shape) * 3, divisor(*b_shape)


def extrema_operands() -> tuple[torch.Tensor, torch.Tensor]:
    torch.manual_seed(22)
    return torch.randn(2, 3, 4), torch.randn(3, 1)


def independent_extrema_operands() -> tuple[torch.Tensor, torch.Tensor]:
    """Ranges 8x apart, so separately quantized operands really have different parameters."""
    torch.manual_seed(23)
    return torch.randn(5, 3) * 4, torch.randn(3) * 0.5


def arithmetic_operands(*shapes, scales=None) -> tuple[torch.Tensor, ...]:
    """Seeded operands of add / sub / mul, each scaled by its entry of ``scales``."""
    torch.manual_seed(sum(len(s) for s in shapes) + len(shapes))
    scales = scales or [1.0] * len(shapes)
    return tuple(torch.randn(s) * k for s, k in zip(shapes, scales))


# Broadcasting pairs of add / sub / mul, ranks 1-5.
ARITHMETIC_SHAPES = [
    ((5,), (5,)),
    ((2, 3), (3,)),
    ((1, 4, 1, 6), (3, 1, 5, 1)),
    ((2, 1, 3, 1, 4), (1, 5, 1, 2, 1)),
    ((7, 1), (1, 9)),
]


def assert_broadcast_close(fn: Callable, shapes) -> None:
    """``fn`` of two seeded operands of ``shapes`` on FP, against torch."""
    torch.manual_seed(0)
    assert_close_to_torch(Fn(fn), tuple(torch.randn(s) for s in shapes))


def assert_a16w8_arithmetic(fn: Callable, tosa_op: str) -> None:
    """int16 activations (TOSA-1.0+INT+int16): one ``tosa_op``, symmetric (zero point 0) inputs and output."""
    inputs = arithmetic_operands((2, 3, 4), (3, 4), scales=[1.0, 2.0])
    run = assert_quantized_close(Fn(fn), inputs, target="TOSA-1.0+INT+int16")
    partition = run.result.report["partitions"][0]
    assert partition["tosa_ops"].count(tosa_op) == 1
    for entry in partition["inputs"] + partition["outputs"]:
        assert entry["dtype"] == "int16" and entry["zero_point"] == 0


def assert_extremum_of_independent_operands(fn: Callable, op: str) -> None:
    """int8 ``fn`` (maximum or minimum, registry name ``op``) with operands and result quantized
    each on their own: each operand is rescaled to the output's first, 1 LSB."""
    run = assert_quantized_close(Fn(fn), independent_extrema_operands(), quantizer=OwnParameters("TOSA-1.0+INT", op))
    inputs = run.result.report["partitions"][0]["inputs"]
    assert inputs[0]["scale"] > 2 * inputs[1]["scale"]  # really different parameters
