"""Activations and clamps on the TOSA FP profile (relu, hardtanh/relu6, clamp, leaky_relu,
elu/selu/celu, gelu, silu, hardswish, hardsigmoid, softplus, logit, glu)."""

import pytest
import torch
import torch.nn.functional as F

from etarm.testing.cpu_fallback import cpu_reasons
from etarm.testing.many_ops import assert_each_close_to_torch

ACTIVATIONS = {
    "relu": F.relu,
    "relu6": F.relu6,
    "hardtanh": lambda x: F.hardtanh(x, -2.0, 1.5),
    "clamp": lambda x: torch.clamp(x, -1.0, 2.0),
    "clamp_min": lambda x: torch.clamp(x, min=0.25),
    "clamp_max": lambda x: torch.clamp(x, max=-0.5),
    "clamp_empty_range": lambda x: torch.clamp(x, 2.0, 1.0),  # torch gives max everywhere
    "leaky_relu": F.leaky_relu,
    "leaky_relu_0": lambda x: F.leaky_relu(x, 0.0),
    "leaky_relu_steep": lambda x: F.leaky_relu(x, 1.5),
    "leaky_relu_negative": lambda x: F.leaky_relu(x, -0.2),
    "elu": F.elu,
    "elu_alpha": lambda x: F.elu(x, alpha=0.3),
    "selu": F.selu,
    "celu": lambda x: F.celu(x, alpha=2.0),
    "gelu": F.gelu,
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "silu": F.silu,
    "hardswish": F.hardswish,
    "hardsigmoid": F.hardsigmoid,
    "softplus": F.softplus,
    "softplus_beta": lambda x: F.softplus(x, beta=2.0, threshold=4.0),
    "logit": lambda x: torch.logit(torch.sigmoid(x)),
    "logit_eps": lambda x: torch.logit(torch.sigmoid(x), eps=0.05),
    "mish": F.mish,
}


@pytest.mark.parametrize("shape", [(9,), (2, 3, 5), (1, 2, 3, 2, 3)], ids=str)
def test_activations_random(shape):
    torch.manual_seed(len(shape))
    assert_each_close_to_torch(ACTIVATIONS, (torch.randn(shape) * 4,))


def test_activations_edge_values():
    # gelu is left out: torch returns NaN for gelu(+inf) where the math (and TOSA) give inf.
    x = torch.tensor([0.0, -0.0, float("inf"), -float("inf"), float("nan"), -3.0, 3.0, 6.0, -1e-7, 1e-7, 25.0, -25.0])
    fns = {name: fn for name, fn in ACTIVATIONS.items() if not name.startswith("gelu")}
    fns["gelu_finite"] = lambda t: F.gelu(torch.nan_to_num(t, nan=0.0, posinf=0.0, neginf=0.0))
    assert_each_close_to_torch(fns, (x,))


def test_composites_are_lowered_whole():
    # hardswish / hardsigmoid / softplus / logit would decompose into several edge ops.
    run = assert_each_close_to_torch(
        {"hardswish": F.hardswish, "hardsigmoid": F.hardsigmoid, "softplus": F.softplus, "logit": torch.logit},
        (torch.rand(3, 4),),
    )
    ops = run.report["partitions"][0]["aten_ops"]
    for op in ("aten.hardswish.default", "aten.hardsigmoid.default", "aten.softplus.default", "aten.logit.default"):
        assert op in ops, ops


def test_clamp_tensor_bounds_broadcast():
    torch.manual_seed(5)
    x, low, high = torch.randn(2, 3, 4), torch.randn(3, 1) - 1, torch.randn(4) + 1
    fns = {
        "both": lambda t, lo, hi: torch.clamp(t, lo, hi),
        "min_only": lambda t, lo, hi: torch.clamp(t, min=lo),
        "max_only": lambda t, lo, hi: torch.clamp(t, max=hi),
    }
    assert_each_close_to_torch(fns, (x, low, high))


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_glu(dim):
    torch.manual_seed(6)
    run = assert_each_close_to_torch({"glu": lambda t: F.glu(t, dim)}, (torch.randn(4, 6, 2),))
    assert "aten.glu.default" in run.report["partitions"][0]["aten_ops"]


@pytest.mark.parametrize("target", ["TOSA-1.0+FP", "TOSA-1.0+FP+INT"])
def test_int32_clamp(target):
    x = torch.arange(-6, 6, dtype=torch.int32).reshape(3, 4)
    fns = {"clamp": lambda t: torch.clamp(t, -2, 3), "relu_like": lambda t: torch.clamp(t, min=0)}
    assert_each_close_to_torch(fns, (x,), target=target)


def test_unsupported_configurations_stay_on_cpu():
    reasons = cpu_reasons(F.relu, (torch.arange(4, dtype=torch.int32),))
    assert any("aten.relu.default does not support data type torch.int32" in r for r in reasons), reasons
    reasons = cpu_reasons(torch.sigmoid, (torch.randn(4).bfloat16(),))
    assert any("aten.sigmoid.default does not support data type torch.bfloat16" in r for r in reasons), reasons
