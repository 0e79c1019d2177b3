"""EfficientNet-B0 (Tan & Le 2019) at 224x224, seeded random weights: MBConv blocks with
squeeze-excitation and SiLU; stochastic depth and dropout are identities at inference."""

from __future__ import annotations

import torch
from torch import nn

from etarm.models.layers import IMAGENET_CLASSES, ImageClassifierHead, conv_bn
from etarm.models.mobilenet import SqueezeExcitation
from etarm.models.registry import builtin
from etarm.models.weights import randomize_batch_norms, seeded


class MBConv(nn.Module):
    """1x1 expand (skipped at factor 1), depthwise conv, squeeze-excitation to a quarter of the
    block's input channels, linear 1x1 project; a residual add when the shape is kept."""

    def __init__(self, inputs: int, outputs: int, kernel: int, stride: int, expansion: int):
        super().__init__()
        hidden = inputs * expansion
        layers = [conv_bn(inputs, hidden, 1, activation=nn.SiLU)] if expansion != 1 else []
        layers += [
            conv_bn(hidden, hidden, kernel, stride, groups=hidden, activation=nn.SiLU),
            SqueezeExcitation(hidden, max(1, inputs // 4), nn.SiLU, nn.Sigmoid),
            conv_bn(hidden, outputs, 1),
        ]
        self.block = nn.Sequential(*layers)
        self.residual = stride == 1 and inputs == outputs

    def forward(self, x):
        return x + self.block(x) if self.residual else self.block(x)


# (expansion, kernel, first stride, output channels, repeats): Table 1 of the EfficientNet paper.
EFFICIENTNET_B0_STAGES = [
    (1, 3, 1, 16, 1),
    (6, 3, 2, 24, 2),
    (6, 5, 2, 40, 2),
    (6, 3, 2, 80, 3),
    (6, 5, 1, 112, 3),
    (6, 5, 2, 192, 4),
    (6, 3, 1, 320, 1),
]


class EfficientNetB0(nn.Module):
    def __init__(self, classes: int = IMAGENET_CLASSES):
        super().__init__()
        layers = [conv_bn(3, 32, 3, 2, activation=nn.SiLU)]
        channels = 32
        for expansion, kernel, stride, outputs, repeats in EFFICIENTNET_B0_STAGES:
            for index in range(repeats):
                layers.append(MBConv(channels, outputs, kernel, stride if index == 0 else 1, expansion))
                channels = outputs
        layers.append(conv_bn(channels, 1280, 1, activation=nn.SiLU))
        self.features = nn.Sequential(*layers)
        self.head = ImageClassifierHead(nn.Dropout(0.2), nn.Linear(1280, classes))

    def forward(self, x):
        return self.head(self.features(x))


@builtin("efficientnet_b0", full_size=True)
def efficientnet_b0():
    seeded()
    return randomize_batch_norms(EfficientNetB0()).eval(), (torch.randn(1, 3, 224, 224),)
