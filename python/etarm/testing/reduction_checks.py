"""The cases reductions are tested on (tests/operators/test_<op>.py of sum, mean, amax,
var, argmax, cumsum, ...), and the seeded inputs of the INT tests of reductions, pools
and resizes.

FP: every reduction sees ranks 1-5, negative dims, several dims (adjacent and not), odd
sizes, with and without keepdim; those taking exactly one dim see one dim of ranks 1-5;
all of an operator's cases are one compile (``packed_cases.Cases``).

INT: max/min-style ops (max pools, amax/amin, max/min, nearest resizes, pixel shuffles)
move integers unchanged: 0 LSB. Averaging ops (avg pools, mean, sum, cumsum, bilinear)
add ``q - zero_point`` exactly in int32 and round once in a RESCALE (half up), where torch
rounds its float result once (half to even): 1 LSB. Index results (argmax/argmin,
max.dim/min.dim's indices) must match exactly, the first of ties winning as in torch.
"""

from __future__ import annotations

from typing import Callable

import torch

from etarm.testing.cpu_fallback import Fn
from etarm.testing.packed_cases import Cases
from etarm.testing.partition_report import partition, tosa_ops
from etarm.testing.quantized_reference import QuantizedRun, assert_quantized_close

# (shape, dim, keepdim): ranks 1-5, negative dims, several dims (adjacent and not), odd sizes.
MULTI_DIM_CASES = [
    ((7,), 0, False),
    ((7,), -1, True),
    ((3, 5), -1, True),
    ((3, 5), [0, 1], False),
    ((2, 3, 5), [0, 2], False),
    ((2, 3, 4, 5), [1, 2], True),
    ((2, 3, 1, 4, 5), [-1, -4], False),
    ((2, 3, 2, 3, 3), [1, 2, 3], True),
]
# (shape, dim, keepdim) for ops that take exactly one dim.
ONE_DIM_CASES = [
    ((7,), -1, False),
    ((4, 5), 0, True),
    ((2, 3, 5), 1, False),
    ((2, 3, 4, 5), -2, True),
    ((2, 1, 3, 2, 5), 4, False),
]
INT16 = "TOSA-1.0+INT+int16"
# int16 outputs dequantize to float32, which near full scale is off by up to ~2e-3 steps.
INT16_ONE_LSB = 1.005


def _cases(configurations, seed: int, fns: dict[str, Callable]) -> Cases:
    cases = Cases()
    for shape, dim, keepdim in configurations:
        torch.manual_seed(seed)
        x = torch.randn(shape)
        for name, fn in fns.items():
            cases.add(f"{name} {shape} dim={dim} keepdim={keepdim}", lambda x, fn=fn, d=dim, k=keepdim: fn(x, d, k), x)
    return cases


def multi_dim_cases(fns: dict[str, Callable]) -> Cases:
    """``fn(x, dim, keepdim)`` of every function for every configuration of ``MULTI_DIM_CASES``."""
    return _cases(MULTI_DIM_CASES, 0, fns)


def one_dim_cases(fns: dict[str, Callable]) -> Cases:
    """``fn(x, dim, keepdim)`` of every function for every configuration of ``ONE_DIM_CASES``."""
    return _cases(ONE_DIM_CASES, 1, fns)


def reduction_cases(
    method: str, whole: bool = True, nan_dim: int | None = None, float16_dim: int | None = None
) -> Cases:
    """``x.<method>(dim, keepdim=keepdim)`` for every configuration of ``MULTI_DIM_CASES``, and
    where asked: ``x.<method>()`` of a whole tensor (``whole``), ``x.<method>(nan_dim)`` of NaN,
    ``x.<method>(float16_dim)`` of float16 (one FP16 rounding)."""
    cases = multi_dim_cases({method: lambda x, dim, keepdim: getattr(x, method)(dim, keepdim=keepdim)})
    if whole:
        cases.add(f"{method}()", lambda x: getattr(x, method)(), whole_tensor_input())
    if nan_dim is not None:
        cases.add(f"{method}({nan_dim}) of NaN", lambda x: getattr(x, method)(nan_dim), nan_input())
    if float16_dim is not None:
        cases.add(
            f"{method}({float16_dim}) of float16",
            lambda x: getattr(x, method)(float16_dim),
            float16_input(),
            atol=2e-3,
            rtol=1e-3,
        )
    return cases


def whole_tensor_input() -> torch.Tensor:
    """For reductions with no dim (0-d results)."""
    torch.manual_seed(2)
    return torch.randn(2, 3, 5) * 0.5 + 1.0


def float16_input() -> torch.Tensor:
    """FP16 sums/variances/softmax compute in FP32 and round once, like torch on CPU; the
    tolerance is one FP16 rounding (atol 2e-3, rtol 1e-3)."""
    torch.manual_seed(6)
    return (torch.randn(3, 64) * 4).half()


def nan_input() -> torch.Tensor:
    """NaN propagates (and wins argmax/argmin) like torch."""
    return torch.tensor([[1.0, float("nan"), 3.0], [4.0, 5.0, 6.0]])


def ties_input() -> torch.Tensor:
    """Ties pick the first index."""
    return torch.tensor([[1.0, 3.0, 3.0, -2.0, -2.0], [0.0, 0.0, 0.0, 0.0, 0.0], [5.0, -1.0, 5.0, -1.0, 2.0]])


# --- INT -------------------------------------------------------------------------------------------


def quantized_input(*shape, seed=0, scale=2.0) -> torch.Tensor:
    torch.manual_seed(seed + len(shape))
    return torch.randn(shape) * scale


def quantized_inputs(*shapes) -> tuple[torch.Tensor, ...]:
    return tuple(quantized_input(*shape, seed=i) for i, shape in enumerate(shapes))


def index_cases(method: str) -> Cases:
    """``x.argmax(...)`` or ``x.argmin(...)`` (``method``) along one dim, of the whole tensor,
    of the flattened input with keepdim, of ties and of NaN."""
    cases = one_dim_cases({method: lambda x, dim, keepdim: getattr(x, method)(dim, keepdim=keepdim)})
    cases.add(f"{method}()", lambda x: getattr(x, method)(), whole_tensor_input())
    torch.manual_seed(3)
    cases.add(
        f"{method}(keepdim=True) of the flattened input",
        lambda x: getattr(x, method)(keepdim=True),
        torch.randn(3, 1, 5),
    )
    cases.add(f"{method}(1) of ties", lambda x: getattr(x, method)(1), ties_input())
    cases.add(f"{method}(1) of NaN", lambda x: getattr(x, method)(1), nan_input())
    return cases


def extremum_cases(method: str) -> Cases:
    """``x.max(...)`` or ``x.min(...)`` (``method``): values and indices along one dim, of the
    whole tensor, and the indices of ties."""
    cases = one_dim_cases({method: lambda x, dim, keepdim: getattr(x, method)(dim, keepdim=keepdim)})
    cases.add(f"{method}()", lambda x: getattr(x, method)(), whole_tensor_input())
    cases.add(f"{method}(1).indices of ties", lambda x: getattr(x, method)(1).indices, ties_input())
    return cases


def assert_quantized_indices(fn, target: str) -> QuantizedRun:
    """Ties are likely on the integer grid (few distinct values): the first index must still win."""
    return assert_quantized_close(Fn(fn), (torch.round(quantized_input(4, 6, 5)),), target, max_lsb=0)


def assert_int8_moves_unchanged(fn: Callable, *shape: int) -> QuantizedRun:
    """int8 ``fn`` of ``quantized_input(*shape)`` moves the integers unchanged: 0 LSB, no RESCALE."""
    run = assert_quantized_close(Fn(fn), (quantized_input(*shape),), max_lsb=0)
    assert "RESCALE" not in tosa_ops(run)
    return run


def assert_int16_moves_unchanged(fn: Callable, *shape: int) -> QuantizedRun:
    """int16 ``fn`` of ``quantized_input(*shape)``, with int16 partition inputs: 0 LSB."""
    run = assert_quantized_close(Fn(fn), (quantized_input(*shape),), INT16, max_lsb=0)
    assert partition(run)["inputs"][0]["dtype"] == "int16"
    return run
