"""add / sub / mul on the TOSA FP profile, with broadcasting, scalars and alpha."""

import pytest
import torch

from etarm.testing.cpu_fallback import Fn
from etarm.testing.tosa_reference import assert_close_to_torch


SHAPES = [
    ((5,), (5,)),
    ((2, 3), (3,)),
    ((1, 4, 1, 6), (3, 1, 5, 1)),
    ((2, 1, 3, 1, 4), (1, 5, 1, 2, 1)),
    ((7, 1), (1, 9)),
]


@pytest.mark.parametrize("fn", [torch.add, torch.sub, torch.mul], ids=["add", "sub", "mul"])
@pytest.mark.parametrize("shapes", SHAPES, ids=str)
def test_binary_broadcast(fn, shapes):
    torch.manual_seed(0)
    inputs = tuple(torch.randn(s) for s in shapes)
    assert_close_to_torch(Fn(fn), inputs)


@pytest.mark.parametrize("fn", [lambda x, y: torch.add(x, y, alpha=2.5), lambda x, y: torch.sub(x, y, alpha=-0.5)], ids=["add", "sub"])
def test_alpha(fn):
    inputs = (torch.randn(3, 4), torch.randn(3, 4))
    assert_close_to_torch(Fn(fn), inputs)


@pytest.mark.parametrize("fn", [lambda x: x + 3.0, lambda x: x - 1.5, lambda x: x * -2.0, lambda x: 2.0 - x], ids=["add", "sub", "mul", "rsub"])
def test_scalar_operand(fn):
    assert_close_to_torch(Fn(fn), (torch.randn(2, 3, 4),))


def test_chain_is_one_partition():
    run = assert_close_to_torch(Fn(lambda x, y: (x + y) * y - x), (torch.randn(4, 4), torch.randn(4, 4)))
    assert run.result.report["partitions"][0]["tosa_ops"].count("MUL") == 1


def test_operands_and_outputs_keep_module_order():
    # The partition reads y before x and computes the second output first: the harness must
    # map both back to the module's order, or these same-shape values get compared crosswise.
    class TwoOutputs(torch.nn.Module):
        def forward(self, x, y):
            second = y * 3.0
            first = y - x
            return first, second

    assert_close_to_torch(TwoOutputs(), (torch.randn(2, 5), torch.randn(2, 5)))


@pytest.mark.parametrize("fn", [torch.add, torch.sub, torch.mul], ids=["add", "sub", "mul"])
def test_rank0_operands(fn):
    assert_close_to_torch(Fn(lambda x, y: fn(fn(x, y), 2.0)), (torch.tensor(1.5), torch.tensor(-0.25)))
