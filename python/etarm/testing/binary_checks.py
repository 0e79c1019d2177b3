"""The operands binary functions are tested on (tests/operators/test_<op>.py of add, sub,
mul, div, pow, remainder, fmod, maximum, minimum), and the checks they share.

FP: every function sees five broadcasting pairs of ranks 1-5 (``binary_cases``), and
the operator's own edge cases are added to the same compile (``packed_cases.Cases``).
INT: divisors of either sign away from zero, and the seeded operands of the exact
two-tensor lookups. The tolerances the test files point to:

- add, sub, mul: PT2E-quantized, lowered with RESCALE, compared with the convert_pt2e'd
  model in eager: an exact op, so 1 output step (LSB) allowed, for the rounding of the
  int32 rescales against torch's float arithmetic. int16 activations
  (TOSA-1.0+INT+int16) are symmetric: zero point 0.
- maximum, minimum: with operands and result sharing their parameters (the quantizer's
  choice) the integers are compared: exact, 0 LSB; with different parameters each
  operand is rescaled to the output's first: 1 LSB.
- fmod, remainder, pow of two int8 tensors: a table of every pair of values (GATHER,
  exact, 0 LSB); int16 would need 2**32 entries, so it stays on CPU.
"""

from __future__ import annotations

import functools
from typing import Callable

import torch

from etarm.compiler import compile_model
from etarm.testing.cpu_fallback import Fn
from etarm.testing.many_ops import assert_each_close_to_torch
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


def extremum_cases(name: str, fn: Callable) -> Cases:
    """``fn`` (maximum or minimum) on every broadcasting pair and on every pair of edge values."""
    return binary_cases({name: fn}).add(f"{name} edge values", fn, *division_edge_operands())


def assert_int32_extrema_close(fns: dict[str, Callable], target: str) -> None:
    """``fns`` (maximum or minimum) of int32 values 1 apart near the int32 limits: exact."""
    assert_each_close_to_torch(fns, int32_extrema_operands(), target=target)


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


def assert_rank0_close(fn: Callable) -> None:
    """``fn(fn(x, y), 2.0)`` of two 0-d tensors on FP: a number operand next to 0-d tensors."""
    assert_close_to_torch(Fn(lambda x, y: fn(fn(x, y), 2.0)), (torch.tensor(1.5), torch.tensor(-0.25)))


def assert_scalar_operand_close(fn: Callable) -> None:
    """``fn`` of a seeded tensor and Python numbers (constant operands) on FP, against torch."""
    assert_close_to_torch(Fn(fn), (torch.randn(2, 3, 4),))


def assert_alpha_close(fn: Callable, alpha: float) -> None:
    """``fn(x, y, alpha=alpha)`` (add or sub) on FP, against torch."""
    assert_close_to_torch(Fn(lambda x, y: fn(x, y, alpha=alpha)), (torch.randn(3, 4), torch.randn(3, 4)))


def assert_int8_scalar_and_alpha(fn: Callable) -> None:
    """int8 ``fn(x, y)`` of two results, one with a number operand (a quantized constant), one
    with alpha (folded into the operand's scale): both outputs of the one partition."""
    run = assert_quantized_close(Fn(fn), arithmetic_operands((2, 3, 4), (4,)))
    assert len(run.result.report["partitions"][0]["outputs"]) == 2


def assert_a16w8_arithmetic(fn: Callable, tosa_op: str) -> None:
    """int16 activations (TOSA-1.0+INT+int16): one ``tosa_op``, symmetric (zero point 0) inputs and output."""
    inputs = arithmetic_operands((2, 3, 4), (3, 4), scales=[1.0, 2.0])
    run = assert_quantized_close(Fn(fn), inputs, target="TOSA-1.0+INT+int16")
    partition = run.result.report["partitions"][0]
    assert partition["tosa_ops"].count(tosa_op) == 1
    for entry in partition["inputs"] + partition["outputs"]:
        assert entry["dtype"] == "int16" and entry["zero_point"] == 0


def arithmetic_checks(fn: Callable, tosa_op: str, alpha: float | None = None) -> dict[str, Callable[[], None]]:
    """The checks add, sub and mul share, by id, each ready to call: ``fn`` on FP of every pair of
    ``ARITHMETIC_SHAPES``, of 0-d tensors and a number, and with ``alpha`` (add, sub) unless None;
    and int16 activations, one ``tosa_op`` (``assert_a16w8_arithmetic``)."""
    checks = {
        f"broadcast {shapes}": functools.partial(assert_broadcast_close, fn, shapes) for shapes in ARITHMETIC_SHAPES
    }
    checks["rank0_operands"] = functools.partial(assert_rank0_close, fn)
    checks["a16w8"] = functools.partial(assert_a16w8_arithmetic, fn, tosa_op)
    if alpha is not None:
        checks[f"alpha {alpha}"] = functools.partial(assert_alpha_close, fn, alpha)
    return checks


def assert_extremum_of_independent_operands(fn: Callable, op: str) -> None:
    """int8 ``fn`` (maximum or minimum, registry name ``op``) with operands and result quantized
    each on their own: each operand is rescaled to the output's first, 1 LSB."""
    run = assert_quantized_close(Fn(fn), independent_extrema_operands(), quantizer=OwnParameters("TOSA-1.0+INT", op))
    inputs = run.result.report["partitions"][0]["inputs"]
    assert inputs[0]["scale"] > 2 * inputs[1]["scale"]  # really different parameters


def assert_extremum_of_shared_parameters(fn: Callable, tosa_op: str, count: int, target: str) -> None:
    """``fn`` (maximum or minimum) with operands and result sharing their parameters: ``count``
    ``tosa_op``s comparing the integers, exact (0 LSB)."""
    run = assert_quantized_close(Fn(fn), extrema_operands(), target=target, max_lsb=0)
    assert run.result.report["partitions"][0]["tosa_ops"].count(tosa_op) == count


def assert_two_tensor_lookup_exact(fn: Callable, a_shape, b_shape) -> None:
    """int8 ``fn`` of two tensors (fmod, remainder, pow): one GATHER from a table of every pair
    of values, exact (0 LSB)."""
    run = assert_quantized_close(Fn(fn), two_tensor_operands(a_shape, b_shape), max_lsb=0)
    assert run.result.report["partitions"][0]["tosa_ops"].count("GATHER") == 1


def assert_int16_two_tensor_lookup_stays_on_cpu(fn: Callable, op: str) -> None:
    """int16 ``fn`` of two tensors (registry name ``op``) stays on CPU: a table of every pair of
    int16 values would have 2**32 entries. The rest of the graph (a product) is still delegated."""
    model = Fn(lambda a, b: (fn(a, b), a * b))
    result = compile_model(model, (torch.randn(4) * 3, divisor(4)), "TOSA-1.0+INT+int16", quantize=True)
    (reason,) = [e["reason"] for e in result.report["cpu_ops"] if e["op"] == op]
    assert reason.startswith(f"{op}: ") and "table of every pair of int8 values" in reason and "int16" in reason
    assert any("MUL" in p["tosa_ops"] for p in result.report["partitions"])
