"""clamp with number bounds (TOSA CLAMP) and tensor bounds (MAXIMUM / MINIMUM).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "clamp" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch

from etarm.testing.binary_checks import rank0_operands
from etarm.testing.cpu_fallback import Fn
from etarm.testing.many_ops import assert_each_close_to_torch
from etarm.testing.quantized_reference import assert_quantized_close
from etarm.testing.unary_checks import activation_cases, assert_int8_clamps


def test_fp():
    fns = {
        "clamp": lambda x: torch.clamp(x, -1.0, 2.0),
        "clamp_min": lambda x: torch.clamp(x, min=0.25),
        "clamp_max": lambda x: torch.clamp(x, max=-0.5),
        "clamp_empty_range": lambda x: torch.clamp(x, 2.0, 1.0),  # torch gives max everywhere
    }
    cases = activation_cases(fns)
    cases.add("clamp of a 0-d tensor", lambda b: b.clamp(-1.0, 1.0), rank0_operands()[1])
    cases.assert_close_to_torch()


def test_clamp_tensor_bounds_broadcast():
    torch.manual_seed(5)
    x, low, high = torch.randn(2, 3, 4), torch.randn(3, 1) - 1, torch.randn(4) + 1
    fns = {
        "both": lambda t, lo, hi: torch.clamp(t, lo, hi),
        "min_only": lambda t, lo, hi: torch.clamp(t, min=lo),
        "max_only": lambda t, lo, hi: torch.clamp(t, max=hi),
    }
    assert_each_close_to_torch(fns, (x, low, high))


@pytest.mark.parametrize("target", ["TOSA-1.0+FP", "TOSA-1.0+FP+INT"])
def test_int32_clamp(target):
    x = torch.arange(-6, 6, dtype=torch.int32).reshape(3, 4)
    fns = {"clamp": lambda t: torch.clamp(t, -2, 3), "relu_like": lambda t: torch.clamp(t, min=0)}
    assert_each_close_to_torch(fns, (x,), target=target)


@pytest.mark.parametrize("target", ["TOSA-1.0+FP", "TOSA-1.0+INT"])
def test_int32_clamp_by_broadcast_tensors(target):
    """Integer data (not quantized) clamps by tensors as integers in either profile."""
    x = torch.arange(-60, 60, dtype=torch.int32).reshape(1, 2, 3, 20)
    low, high = torch.full((1, 2, 1, 1), -7, dtype=torch.int32), torch.arange(20, dtype=torch.int32) - 5
    fns = {"both": lambda t, lo, hi: torch.clamp(t, lo, hi), "min_only": lambda t, lo, hi: torch.clamp(t, min=lo)}
    assert_each_close_to_torch(fns, (x, low, high), target=target)


def test_int8_clamp():
    assert_int8_clamps(
        {
            "clamp": lambda x: torch.clamp(x, -1.0, 0.5),
            "clamp_min": lambda x: torch.clamp(x, min=0.25),
            "clamp_max": lambda x: torch.clamp(x, max=-0.5),
        }
    )


def test_clamp_fused_into_mul_clamps_in_integers():
    """The quantized range always includes 0, so a lower bound of 0.25 needs a real CLAMP."""
    torch.manual_seed(2)
    x = torch.randn(3, 7) * 2.0
    torch.manual_seed(1)
    y = torch.randn(7) * 2.0
    run = assert_quantized_close(Fn(lambda x, y: torch.clamp(x * y, min=0.25)), (x, y))
    ops = run.result.report["partitions"][0]["tosa_ops"]
    assert ops[-2:] == ["RESCALE", "CLAMP"] and ops.count("MUL") == 1
