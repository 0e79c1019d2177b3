"""Wav2Letter (Collobert et al. 2016), the all-convolutional speech recogniser, on MFCC input.

The deployed form: 39 MFCC features (13 coefficients with their first and second
differences) over 296 frames, 29 output symbols (28 characters and the CTC blank) per frame
at half the input rate. Seeded random weights.
"""

from __future__ import annotations

import torch
from torch import nn

from etarm.models.registry import builtin
from etarm.models.weights import seeded

MFCC_FEATURES = 39
FRAMES = 296
SYMBOLS = 29


def conv_relu(inputs: int, outputs: int, kernel: int, stride: int = 1) -> list[nn.Module]:
    return [nn.Conv1d(inputs, outputs, kernel, stride, padding=kernel // 2), nn.ReLU()]


class Wav2Letter(nn.Module):
    """A strided 48-wide conv, seven 7-wide convs of 250 channels, a 32-wide conv to 2000, two
    1x1 convs (2000, then the symbols): the layer table of the paper for MFCC input."""

    def __init__(self, features: int = MFCC_FEATURES, symbols: int = SYMBOLS):
        super().__init__()
        layers = conv_relu(features, 250, 48, stride=2)
        for _ in range(7):
            layers += conv_relu(250, 250, 7)
        layers += conv_relu(250, 2000, 32) + conv_relu(2000, 2000, 1)
        layers.append(nn.Conv1d(2000, symbols, 1))
        self.layers = nn.Sequential(*layers)

    def forward(self, x):
        return self.layers(x)


@builtin("wav2letter", full_size=True)
def wav2letter():
    seeded()
    return Wav2Letter().eval(), (torch.randn(1, MFCC_FEATURES, FRAMES),)
