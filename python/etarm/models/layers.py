"""Building blocks the built-in image networks share."""

from __future__ import annotations

from typing import Callable

import torch
from torch import nn

from etarm.models.weights import randomize_batch_norms, seeded

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


class ImageClassifier(nn.Module):
    """Feature layers, global average pool, flatten, classifier layers."""

    def __init__(self, features: list[nn.Module], classifier: list[nn.Module]):
        super().__init__()
        self.features = nn.Sequential(*features)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(*classifier)

    def forward(self, x):
        return self.classifier(torch.flatten(self.pool(self.features(x)), 1))


def image_model(network: Callable[[], nn.Module], resolution: int = 224) -> tuple[nn.Module, tuple]:
    """A built-in image network with seeded weights and BatchNorm statistics, one RGB image."""
    seeded()
    return randomize_batch_norms(network()).eval(), (torch.randn(1, 3, resolution, resolution),)
