"""The built-in models: small graphs that exercise each target end to end."""

from __future__ import annotations

import torch

from etarm.models.registry import builtin


class Binary(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x, y):
        return self.fn(x, y)


def _binary_inputs():
    torch.manual_seed(0)
    return (torch.randn(1, 8, 16, 16), torch.randn(1, 8, 16, 16))


@builtin("add")
def add():
    return Binary(torch.add).eval(), _binary_inputs()


@builtin("sub")
def sub():
    return Binary(torch.sub).eval(), _binary_inputs()


@builtin("mul")
def mul():
    return Binary(torch.mul).eval(), _binary_inputs()


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(16, 32)
        self.fc2 = torch.nn.Linear(32, 10)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


@builtin("mlp")
def mlp():
    torch.manual_seed(0)
    return Mlp().eval(), (torch.randn(2, 16),)
