"""EfficientNet-B0 (Tan & Le 2019) at 224x224, seeded random weights: inverted residuals (MBConv)
with squeeze-excitation and SiLU; stochastic depth and dropout are identities at inference."""

from __future__ import annotations

from torch import nn

from etarm.models.layers import IMAGENET_CLASSES, ImageClassifier, conv_bn, image_model
from etarm.models.mobilenet import InvertedResidual, SqueezeExcitation
from etarm.models.registry import builtin

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


class EfficientNetB0(ImageClassifier):
    def __init__(self, classes: int = IMAGENET_CLASSES):
        layers = [conv_bn(3, 32, 3, 2, activation=nn.SiLU)]
        channels = 32
        for expansion, kernel, stride, outputs, repeats in EFFICIENTNET_B0_STAGES:
            for index in range(repeats):
                hidden = channels * expansion
                # The squeeze keeps a quarter of the block's input channels, not of the expanded ones.
                excite = SqueezeExcitation(hidden, max(1, channels // 4), nn.SiLU, nn.Sigmoid)
                first_stride = stride if index == 0 else 1
                layers.append(InvertedResidual(channels, hidden, outputs, kernel, first_stride, nn.SiLU, excite))
                channels = outputs
        layers.append(conv_bn(channels, 1280, 1, activation=nn.SiLU))
        super().__init__(layers, [nn.Dropout(0.2), nn.Linear(1280, classes)])


@builtin("efficientnet_b0", full_size=True)
def efficientnet_b0():
    return image_model(EfficientNetB0)
