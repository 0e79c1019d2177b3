"""Seeded random weights for the built-in networks: no trained checkpoints ship with etarm."""

from __future__ import annotations

import torch
from torch import nn


def seeded(seed: int = 0) -> None:
    torch.manual_seed(seed)


def randomize_batch_norms(module: nn.Module) -> nn.Module:
    """Fresh BatchNorms are identities; give them statistics so folding is exercised."""
    for layer in module.modules():
        if isinstance(layer, (nn.BatchNorm1d, nn.BatchNorm2d)):
            layer.running_mean.uniform_(-0.5, 0.5)
            layer.running_var.uniform_(0.5, 2.0)
            layer.weight.data.uniform_(0.5, 1.5)
            layer.bias.data.uniform_(-0.2, 0.2)
    return module
