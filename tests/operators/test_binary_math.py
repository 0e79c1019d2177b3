"""div / pow / minimum / maximum / remainder / fmod / floor_divide on the TOSA FP profile.

Float division is a * RECIPROCAL(b) (TOSA 1.0 has no float DIV): within ~1.5 ulp, so
quotients are compared at 1e-5. Integer division uses INTDIV with a floor correction
built from ops legal in both profiles.
"""

import pytest
import torch

from etarm.testing.cpu_fallback import cpu_reasons
from etarm.testing.many_ops import assert_each_close_to_torch

BINARY = {
    "div": torch.div,
    "div_floor": lambda a, b: torch.div(a, b, rounding_mode="floor"),
    "div_trunc": lambda a, b: torch.div(a, b, rounding_mode="trunc"),
    "floor_divide": torch.floor_divide,
    "minimum": torch.minimum,
    "maximum": torch.maximum,
    "remainder": torch.remainder,
    "fmod": torch.fmod,
    "pow_integral_exponent": lambda a, b: torch.pow(a, torch.round(b)),
    "pow_positive_base": lambda a, b: torch.pow(torch.abs(a) + 0.1, b),
}

SHAPES = [
    ((6,), (6,)),
    ((2, 3), (3,)),
    ((1, 4, 1), (3, 1, 5)),
    ((2, 1, 3, 1), (1, 5, 1, 2)),
    ((1, 2, 1, 3, 2), (2, 1, 3, 1, 1)),
]


@pytest.mark.parametrize("shapes", SHAPES, ids=str)
def test_binary_broadcast(shapes):
    torch.manual_seed(len(shapes[0]))
    a, b = (torch.randn(s) * 3 for s in shapes)
    assert_each_close_to_torch(BINARY, (a, b))


def test_scalar_operands():
    torch.manual_seed(7)
    fns = {
        "div_scalar": lambda a: a / 3.0,
        "rdiv": lambda a: 2.0 / a,
        "div_floor_scalar": lambda a: torch.div(a, 0.7, rounding_mode="floor"),
        "min_scalar_tensor": lambda a: torch.minimum(a, torch.tensor(0.5)),
        "remainder_scalar": lambda a: torch.remainder(a, 1.5),
        "remainder_negative_scalar": lambda a: torch.remainder(a, -1.5),
        "fmod_scalar": lambda a: torch.fmod(a, -1.5),
        "floor_divide_scalar": lambda a: a // 2.0,
    }
    assert_each_close_to_torch(fns, (torch.randn(3, 4) * 5,))


def test_pow_constant_exponents():
    # Integer exponents are products (any base sign); 0.5 / -0.5 use RSQRT; others POW.
    x = torch.tensor([0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.3, 3.7, -3.7, float("inf"), -float("inf"), float("nan"), 1e-3])
    fns = {f"x**{e}": (lambda t, e=e: t**e) for e in (0, 1, 2, 3, -1, -2, 5, 17, 0.5, -0.5, 1.5, -2.5, 0.3)}
    fns["2**x"] = lambda t: 2.0**t
    fns["0.5**x"] = lambda t: 0.5**t
    fns["(-2)**x"] = lambda t: (-2.0) ** t
    assert_each_close_to_torch(fns, (x,))


def test_pow_tensor_edge_values():
    # Every pair of edge values: 0, +-1, +-inf, NaN, negative bases with odd/even/fractional exponents.
    values = torch.tensor([0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 3.0, -3.0, 2.5, float("inf"), -float("inf"), float("nan")])
    base, exponent = values.reshape(-1, 1), values.reshape(1, -1)
    assert_each_close_to_torch({"pow": torch.pow}, (base, exponent))


def test_division_edge_values():
    a = torch.tensor([1.0, -1.0, 0.0, float("inf"), 5.0, -7.5, float("nan"), 3.0]).reshape(-1, 1)
    b = torch.tensor([0.0, -0.0, 1.0, float("inf"), -2.0, 0.25]).reshape(1, -1)
    assert_each_close_to_torch({"div": torch.div, "maximum": torch.maximum, "minimum": torch.minimum}, (a, b))


def test_int32_division_on_fp_profile():
    # Mixed signs everywhere: floor and trunc differ exactly there.
    a = torch.tensor([-7, -6, -5, -1, 0, 1, 5, 6, 7, 2147483647, -2147483647], dtype=torch.int32).reshape(-1, 1)
    b = torch.tensor([-3, -2, -1, 1, 2, 3, 7], dtype=torch.int32).reshape(1, -1)
    fns = {
        "floor_divide": torch.floor_divide,
        "div_trunc": lambda x, y: torch.div(x, y, rounding_mode="trunc"),
        "remainder": torch.remainder,
        "fmod": torch.fmod,
        "true_div": torch.div,
        "remainder_scalar": lambda x, y: x % 4,
        "floor_divide_scalar": lambda x, y: x // -3,
        "pow_0": lambda x, y: x**0,
        "pow_3": lambda x, y: x**3,
        "pow_7_wraps": lambda x, y: x**7,
    }
    assert_each_close_to_torch(fns, (a, b))


@pytest.mark.parametrize("target", ["TOSA-1.0+FP", "TOSA-1.0+FP+INT"])
def test_int32_minimum_maximum(target):
    # Values 1 apart near the int32 limits round to the same float32: the exact path decides.
    a = torch.tensor([1, -5, 3, 2147483647, -2147483647, 2147483520, -2147483520], dtype=torch.int32)
    b = torch.tensor([0, 2, 3, 2147483646, -2147483646, 2147483519, 2147483520], dtype=torch.int32)
    assert_each_close_to_torch({"min": torch.minimum, "max": torch.maximum}, (a, b), target=target)


def test_unsupported_configurations_stay_on_cpu():
    a8, b8 = torch.tensor([7, -7], dtype=torch.int8), torch.tensor([2, 2], dtype=torch.int8)
    reasons = cpu_reasons(torch.floor_divide, (a8, b8))
    assert any("aten.div.Tensor_mode does not support data type torch.int8" in r for r in reasons), reasons
    i = torch.tensor([2, 3], dtype=torch.int32)
    reasons = cpu_reasons(lambda t: torch.pow(t, 20), (i,))
    assert any("integer powers need a constant exponent in [0, 16], not 20" in r for r in reasons), reasons


def test_rank0_operands():
    fns = {
        "div": lambda a, b: a / b,
        "pow": lambda a, b: a**b,
        "remainder": lambda a, b: a % b,
        "maximum_scalar_tensor": lambda a, b: torch.maximum(a, torch.scalar_tensor(2.0)),
        "sqrt": lambda a, b: torch.sqrt(a),
        "atan": lambda a, b: torch.atan(b),
        "clamp": lambda a, b: b.clamp(-1.0, 1.0),
        "where": lambda a, b: torch.where(a > b, a, 0.0),
        "to_int": lambda a, b: b.int(),
    }
    assert_each_close_to_torch(fns, (torch.tensor(0.7), torch.tensor(-1.5)))
