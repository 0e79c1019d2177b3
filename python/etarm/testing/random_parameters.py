"""Modules with non-trivial parameters, for the normalization tests (their defaults are ones and zeros)."""

from __future__ import annotations

import torch


def randomize(module: torch.nn.Module) -> torch.nn.Module:
    """Affine parameters in [-1, 1) and running variances in [0.5, 2); the module in eval mode."""
    with torch.no_grad():
        for name, tensor in list(module.named_parameters()) + list(module.named_buffers()):
            if tensor.is_floating_point():
                if "var" in name:
                    tensor.uniform_(0.5, 2.0)
                else:
                    tensor.uniform_(-1.0, 1.0)
    return module.eval()
