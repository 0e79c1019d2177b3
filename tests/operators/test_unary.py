"""Unary float math on the TOSA FP profile: direct TOSA ops and the compositions of
float_math (sqrt, expm1, log1p, trig/hyperbolic inverses, erfinv, round, sign, ...).

Each compile lowers every function at once (one partition, one output per function), so
the suite stays fast while every op sees ranks 1-5, odd sizes, edge values and ranges.
"""

import pytest
import torch

from etarm.testing.cpu_fallback import cpu_reasons
from etarm.testing.many_ops import assert_each_close_to_torch

MATH = {
    "exp": torch.exp,
    "log": torch.log,
    "sqrt": torch.sqrt,
    "rsqrt": torch.rsqrt,
    "reciprocal": torch.reciprocal,
    "sigmoid": torch.sigmoid,
    "tanh": torch.tanh,
    "sin": torch.sin,
    "cos": torch.cos,
    "erf": torch.erf,
    "floor": torch.floor,
    "ceil": torch.ceil,
    "trunc": torch.trunc,
    "round": torch.round,
    "sign": torch.sign,
    "abs": torch.abs,
    "neg": torch.neg,
    "expm1": torch.expm1,
    "log1p": torch.log1p,
    "log10": torch.log10,
    "log2": torch.log2,
    "atan": torch.atan,
    "asin": torch.asin,
    "acos": torch.acos,
    "sinh": torch.sinh,
    "cosh": torch.cosh,
    "tan": torch.tan,
    "asinh": torch.asinh,
    "acosh": torch.acosh,
    "atanh": torch.atanh,
    "erfinv": torch.erfinv,
}

EDGE_VALUES = [
    0.0, -0.0, 1.0, -1.0, float("inf"), -float("inf"), float("nan"), 1e-7, -1e-7, 1e-30, 0.5, -0.5,
    1.5, 2.5, -2.5, 3.5, 0.999, -0.999, 1.001, 2.0, 10.0, -10.0, 100.0, -100.0, 1e10, 16777217.0,
]


@pytest.mark.parametrize("shape", [(7,), (3, 5), (2, 3, 4), (2, 1, 3, 5), (1, 2, 3, 2, 3)], ids=str)
def test_unary_math_random(shape):
    torch.manual_seed(len(shape))
    assert_each_close_to_torch(MATH, (torch.randn(shape) * 2,))


def test_unary_math_edge_values():
    # Zeros, infinities, NaN, domain boundaries (+-1, 0), ties for round, tiny and huge values.
    assert_each_close_to_torch(MATH, (torch.tensor(EDGE_VALUES),))


def test_unary_math_unit_interval():
    # The domain of asin / acos / atanh / erfinv, including values close to +-1.
    torch.manual_seed(1)
    x = torch.cat([torch.rand(200) * 2 - 1, 1 - torch.logspace(-7, -1, 20), torch.logspace(-7, -1, 20) - 1])
    assert_each_close_to_torch(MATH, (x,))


def test_unary_math_wide_range():
    # Large magnitudes: exp/sinh/cosh overflow, acosh/asinh far regime, log of large values.
    torch.manual_seed(2)
    x = torch.cat([torch.randn(100) * 30, torch.logspace(-3, 30, 40), -torch.logspace(-3, 30, 40)])
    assert_each_close_to_torch(MATH, (x,))


def test_round_decimals():
    torch.manual_seed(3)
    x = torch.randn(4, 6) * 100
    fns = {f"decimals={d}": (lambda t, d=d: torch.round(t, decimals=d)) for d in (-2, -1, 1, 2, 3)}
    assert_each_close_to_torch(fns, (x,), atol=1e-4)


def test_integer_input_is_promoted_to_float():
    x = torch.arange(-6, 6, dtype=torch.int32).reshape(3, 4)
    fns = {"exp": lambda t: torch.exp(t * 1), "sqrt": torch.sqrt, "sigmoid": torch.sigmoid, "sin": torch.sin}
    assert_each_close_to_torch(fns, (x,))


def test_neg_int32_on_fp_profile():
    x = torch.tensor([[-5, 0, 7], [2147483647, -2147483647, 1]], dtype=torch.int32)
    assert_each_close_to_torch({"neg": torch.neg}, (x,))


def test_float16():
    # fp16 keeps ~3 significant digits: compare with fp16's own rounding unit.
    torch.manual_seed(4)
    x = (torch.rand(3, 8) * 1.8 - 0.9).half()
    fns = {name: MATH[name] for name in ("exp", "sqrt", "tanh", "sigmoid", "atan", "asin", "expm1", "log1p", "round")}
    assert_each_close_to_torch(fns, (x,), atol=2e-3, rtol=2e-3)


@pytest.mark.parametrize("target", ["TOSA-1.0+FP", "TOSA-1.0+FP+INT"])
def test_abs_int32(target):
    # INT profile: ABS; FP alone (int32 ABS is PRO-INT): composed from legal ops.
    x = torch.tensor([[-3, 4, 0], [2147483647, -2147483647, -1]], dtype=torch.int32)
    run = assert_each_close_to_torch({"abs": torch.abs}, (x,), target=target)
    assert ("ABS" in run.report["partitions"][0]["tosa_ops"]) == (target == "TOSA-1.0+FP+INT")


def test_bfloat16_stays_on_cpu():
    reasons = cpu_reasons(torch.exp, (torch.randn(4).bfloat16(),))
    assert any("does not support data type torch.bfloat16" in r for r in reasons), reasons
