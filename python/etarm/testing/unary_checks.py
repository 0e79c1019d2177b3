"""The inputs every unary function and activation is tested on, and the checks on them
(tests/operators/test_<op>.py of exp, tanh, gelu, ...).

FP: each function sees ranks 1-5 with odd sizes, edge values (zeros, infinities, NaN,
domain boundaries, ties for round, tiny and huge values), the unit interval and a wide
range, all in one compile (``packed_cases.Cases``).

INT: PT2E-quantized, run on the TOSA reference model and compared with the convert_pt2e'd
model in eager, in output steps (LSB), on seeded inputs whose calibration the bounds were
worked out for:

- int8 functions of one tensor are one TABLE whose 256 entries come from torch's own
  dequantize / function / quantize: bit-exact, 0 LSB;
- int16 functions take TOSA's interpolated TABLE only where, for every int16 input, it
  is within 2 LSB of the exact result (checked when lowering), so 2 LSB; functions it
  cannot follow (steps, singular slopes) take an exact 65536-entry GATHER: 0 LSB;
- int16 abs and neg are integer ops and one RESCALE: 1 LSB (rounding of the rescale).
"""

from __future__ import annotations

import collections
from typing import Callable

import torch

from etarm.testing.packed_cases import Cases
from etarm.testing.partition_report import aten_ops, tosa_ops
from etarm.testing.quantized_reference import QuantizedRun
from etarm.testing.tosa_reference import LoweredRun

INT16 = "TOSA-1.0+INT+int16"

MATH_SHAPES = [(7,), (3, 5), (2, 3, 4), (2, 1, 3, 5), (1, 2, 3, 2, 3)]
MATH_EDGE_VALUES = [
    0.0, -0.0, 1.0, -1.0, float("inf"), -float("inf"), float("nan"), 1e-7, -1e-7, 1e-30, 0.5, -0.5,
    1.5, 2.5, -2.5, 3.5, 0.999, -0.999, 1.001, 2.0, 10.0, -10.0, 100.0, -100.0, 1e10, 16777217.0,
]  # fmt: skip

ACTIVATION_SHAPES = [(9,), (2, 3, 5), (1, 2, 3, 2, 3)]
ACTIVATION_EDGE_VALUES = [
    0.0,
    -0.0,
    float("inf"),
    -float("inf"),
    float("nan"),
    -3.0,
    3.0,
    6.0,
    -1e-7,
    1e-7,
    25.0,
    -25.0,
]


def math_inputs() -> dict[str, torch.Tensor]:
    """Random values of ranks 1-5, edge values, the unit interval (the domain of asin, acos,
    atanh, erfinv, with values close to +-1) and large magnitudes (overflowing exp, sinh,
    cosh; the far regime of acosh, asinh, log)."""
    inputs = {}
    for shape in MATH_SHAPES:
        torch.manual_seed(len(shape))
        inputs[f"random {shape}"] = torch.randn(shape) * 2
    inputs["edge values"] = torch.tensor(MATH_EDGE_VALUES)
    torch.manual_seed(1)
    inputs["unit interval"] = torch.cat(
        [torch.rand(200) * 2 - 1, 1 - torch.logspace(-7, -1, 20), torch.logspace(-7, -1, 20) - 1]
    )
    torch.manual_seed(2)
    inputs["wide range"] = torch.cat([torch.randn(100) * 30, torch.logspace(-3, 30, 40), -torch.logspace(-3, 30, 40)])
    return inputs


def math_float16_input() -> torch.Tensor:
    """fp16 keeps ~3 significant digits: compared with fp16's own rounding unit (2e-3)."""
    torch.manual_seed(4)
    return (torch.rand(3, 8) * 1.8 - 0.9).half()


def math_int32_input() -> torch.Tensor:
    """An integer input, promoted to float by the function."""
    return torch.arange(-6, 6, dtype=torch.int32).reshape(3, 4)


def math_cases(fns: dict[str, Callable], cases: Cases | None = None, float16: bool = False) -> Cases:
    """Every function of ``fns`` on every input of ``math_inputs`` (tolerance 1e-5) and, with
    ``float16``, on ``math_float16_input`` (tolerance 2e-3)."""
    cases = cases if cases is not None else Cases()
    for input_name, x in math_inputs().items():
        for name, fn in fns.items():
            cases.add(f"{name} on {input_name}", fn, x)
    if float16:
        for name, fn in fns.items():
            cases.add(f"{name} of float16", fn, math_float16_input(), atol=2e-3, rtol=2e-3)
    return cases


def activation_inputs() -> dict[str, torch.Tensor]:
    """Random values of ranks 1, 3 and 5, spread over [-12, 12] or so."""
    inputs = {}
    for shape in ACTIVATION_SHAPES:
        torch.manual_seed(len(shape))
        inputs[f"random {shape}"] = torch.randn(shape) * 4
    return inputs


def activation_cases(fns: dict[str, Callable], edge_fns: dict[str, Callable] | None = None) -> Cases:
    """``fns`` on the random activation inputs and ``edge_fns`` (default ``fns``) on the edge values."""
    cases = Cases()
    for input_name, x in activation_inputs().items():
        for name, fn in fns.items():
            cases.add(f"{name} on {input_name}", fn, x)
    edge = torch.tensor(ACTIVATION_EDGE_VALUES)
    for name, fn in (edge_fns if edge_fns is not None else fns).items():
        cases.add(f"{name} on edge values", fn, edge)
    return cases


def assert_lowered_whole(op: str, fns: dict[str, Callable], unit_fn: Callable) -> LoweredRun:
    """``activation_cases(fns)`` and ``unit_fn`` on [0, 1): an activation that would decompose
    into several edge ops is lowered whole, ``aten.<op>.default`` in the partition."""
    cases = activation_cases(fns)
    cases.add(f"{op} on [0, 1)", unit_fn, torch.rand(3, 4))
    run = cases.assert_close_to_torch()
    assert f"aten.{op}.default" in aten_ops(run)
    return run


# --- INT: seeded inputs of the quantized table tests -----------------------------------------------


def int8_rank3_input() -> torch.Tensor:
    """Functions defined everywhere: exp, tanh, gelu and the other activations."""
    torch.manual_seed(3)
    return torch.randn(2, 3, 9) * 3


def int8_rank4_input() -> torch.Tensor:
    """Functions defined everywhere: steps (floor, sign, round, ...), powers, remainders, trig."""
    torch.manual_seed(4)
    return torch.randn(1, 4, 1, 5) * 3


def int8_positive_input() -> torch.Tensor:
    """x in [1.05, 6): log, sqrt, reciprocal, acosh, fractional powers."""
    torch.manual_seed(7)
    return torch.rand(37) * (6.0 - 1.05) + 1.05


def int8_unit_input() -> torch.Tensor:
    """-0.97 < x < 0.97: asin, acos, atanh, erfinv, tan, logit."""
    torch.manual_seed(7)
    return torch.rand(1, 2, 3, 2, 3) * 1.94 - 0.97


def int8_scalar_input() -> torch.Tensor:
    return torch.tensor(1.7)


def int16_input() -> torch.Tensor:
    """int16: where the interpolated TABLE holds 2 LSB, and where the exact lookup is taken."""
    torch.manual_seed(11)
    return torch.randn(3, 5, 7) * 2


def int16_positive_input() -> torch.Tensor:
    """int16 x in [1, 6): the int16 input range includes 0, where log, sqrt, reciprocal are singular."""
    torch.manual_seed(12)
    return torch.rand(2, 17) * 5 + 1


INT8_INPUTS: dict[str, Callable[[], torch.Tensor]] = {
    "rank3": int8_rank3_input,
    "rank4": int8_rank4_input,
    "positive": int8_positive_input,
    "unit": int8_unit_input,
    "scalar": int8_scalar_input,
}


def assert_int8_tables_exact(**fns_by_input: dict[str, Callable]) -> QuantizedRun:
    """Each function on the int8 input named by its keyword (``INT8_INPUTS``) is one
    exact TABLE (0 LSB)::

        assert_int8_tables_exact(rank3={"exp": torch.exp}, scalar={"exp": torch.exp})
    """
    cases = Cases()
    for input_name, fns in fns_by_input.items():
        x = INT8_INPUTS[input_name]()
        for name, fn in fns.items():
            cases.add(f"{name} on {input_name}", fn, x, max_lsb=0)
    run = cases.assert_quantized_close()
    assert tosa_ops(run) == ["TABLE"] * len(cases.cases), tosa_ops(run)
    return run


def assert_int16_lookups(fns: dict[str, tuple[Callable, str | None, float]], positive: bool = False) -> QuantizedRun:
    """``fns`` maps a name to (function, the TOSA op computing it or None, max LSB), on the
    int16 input (``positive``: the one of [1, 6))."""
    x = int16_positive_input() if positive else int16_input()
    cases = Cases()
    for name, (fn, _op, max_lsb) in fns.items():
        cases.add(name, fn, x, max_lsb=max_lsb)
    run = cases.assert_quantized_close(INT16)
    counts = collections.Counter(op for _fn, op, _lsb in fns.values() if op is not None)
    for op, count in counts.items():
        assert tosa_ops(run).count(op) == count, tosa_ops(run)
    return run


def int8_clamp_input() -> torch.Tensor:
    torch.manual_seed(3)
    return torch.randn(2, 3, 8) * 2.0


def assert_int8_clamps(fns: dict[str, Callable]) -> QuantizedRun:
    """Each activation quantized on its own: a RESCALE to its output range, then a CLAMP
    unless that range already lies within the bounds (then quantizing clips for free).
    CLAMP is exact: 1 LSB allowed only for the RESCALE before it."""
    cases = Cases()
    for name, fn in fns.items():
        cases.add(name, fn, int8_clamp_input())
    run = cases.assert_quantized_close()
    assert set(tosa_ops(run)) <= {"RESCALE", "CLAMP"}, tosa_ops(run)
    return run
