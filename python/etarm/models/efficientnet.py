"""EfficientNet-B0 (Tan & Le 2019) at 224x224, seeded random weights: inverted residuals (MBConv)
with squeeze-excitation and SiLU; stochastic depth and dropout are identities at inference."""

from __future__ import annotations

from torch import nn

from etarm.models.layers import image_model
from etarm.models.mobilenet import InvertedResidual, SqueezeExcitation, StackedBottlenecks
from etarm.models.registry import builtin

# (output channels, repeats, first stride, expansion, kernel): Table 1 of the EfficientNet paper.
EFFICIENTNET_B0_STAGES = [
    (16, 1, 1, 1, 3),
    (24, 2, 2, 6, 3),
    (40, 2, 2, 6, 5),
    (80, 3, 2, 6, 3),
    (112, 3, 1, 6, 5),
    (192, 4, 2, 6, 5),
    (320, 1, 1, 6, 3),
]


def mbconv(inputs: int, outputs: int, stride: int, expansion: int, kernel: int) -> InvertedResidual:
    hidden = inputs * expansion
    # The squeeze keeps a quarter of the block's input channels, not of the expanded ones.
    excite = SqueezeExcitation(hidden, max(1, inputs // 4), nn.SiLU, nn.Sigmoid)
    return InvertedResidual(inputs, hidden, outputs, kernel, stride, nn.SiLU, excite)


@builtin("efficientnet_b0", full_size=True)
def efficientnet_b0():
    return image_model(lambda: StackedBottlenecks(EFFICIENTNET_B0_STAGES, mbconv, nn.SiLU))
