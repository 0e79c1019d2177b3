"""Building blocks the built-in image networks share."""

from __future__ import annotations

import torch
from torch import nn

IMAGENET_CLASSES = 1000


def make_divisible(channels: float, divisor: int = 8) -> int:
    """Channel counts of scaled networks round to a multiple of 8, never more than 10% down."""
    rounded = max(divisor, int(channels + divisor / 2) // divisor * divisor)
    return rounded + divisor if rounded < 0.9 * channels else rounded


def conv_bn(
    inputs: int, outputs: int, kernel: int, stride: int = 1, groups: int = 1, activation: type[nn.Module] | None = None
) -> nn.Sequential:
    """Convolution with 'same' padding, BatchNorm, then the activation if any."""
    layers = [
        nn.Conv2d(inputs, outputs, kernel, stride, (kernel - 1) // 2, groups=groups, bias=False),
        nn.BatchNorm2d(outputs),
    ]
    if activation is not None:
        layers.append(activation())
    return nn.Sequential(*layers)


class ImageClassifierHead(nn.Module):
    """Global average pool, flatten, then the given classifier layers."""

    def __init__(self, *classifier: nn.Module):
        super().__init__()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(*classifier)

    def forward(self, x):
        return self.classifier(torch.flatten(self.pool(x), 1))
