"""MobileNet V1 (Howard et al. 2017), V2 (Sandler et al. 2018) and V3-Small (Howard et al. 2019)
at their published layer shapes, ImageNet's 1000 classes, seeded random weights."""

from __future__ import annotations

from torch import nn

from etarm.models.layers import IMAGENET_CLASSES, ImageClassifier, conv_bn, image_model, make_divisible
from etarm.models.registry import builtin

# (output channels, stride) of the 13 depthwise-separable layers of MobileNetV1 at width 1.0.
MOBILENET_V1_LAYERS = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2)]
MOBILENET_V1_LAYERS += [(512, 1)] * 5 + [(1024, 2), (1024, 1)]


class MobileNetV1(ImageClassifier):
    """A strided 3x3 conv, 13 depthwise 3x3 + pointwise 1x1 pairs (BN, ReLU6), pool, classifier."""

    def __init__(self, width: float = 1.0, classes: int = IMAGENET_CLASSES):
        channels = make_divisible(32 * width)
        layers = [conv_bn(3, channels, 3, 2, activation=nn.ReLU6)]
        for outputs, stride in MOBILENET_V1_LAYERS:
            outputs = make_divisible(outputs * width)
            layers += [
                conv_bn(channels, channels, 3, stride, groups=channels, activation=nn.ReLU6),
                conv_bn(channels, outputs, 1, activation=nn.ReLU6),
            ]
            channels = outputs
        super().__init__(layers, [nn.Linear(channels, classes)])


@builtin("mobilenet_v1_025", full_size=True)
def mobilenet_v1_025():
    """Width 0.25 at 128x128, the smallest of the published ImageNet MobileNetV1 variants."""
    return image_model(lambda: MobileNetV1(width=0.25), resolution=128)


class SqueezeExcitation(nn.Module):
    """Channel attention: global average pool, 1x1 squeeze + activation, 1x1 excite + gate, scale."""

    def __init__(self, channels: int, squeezed: int, activation: type[nn.Module], gate: type[nn.Module]):
        super().__init__()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.squeeze = nn.Conv2d(channels, squeezed, 1)
        self.activation = activation()
        self.excite = nn.Conv2d(squeezed, channels, 1)
        self.gate = gate()

    def forward(self, x):
        return x * self.gate(self.excite(self.activation(self.squeeze(self.pool(x)))))


class InvertedResidual(nn.Module):
    """The mobile bottleneck of MobileNetV2/V3 and EfficientNet: 1x1 expand (skipped when there
    is nothing to expand), depthwise conv, optional squeeze-excitation, linear 1x1 project; a
    residual add when the shape is kept."""

    def __init__(
        self,
        inputs: int,
        hidden: int,
        outputs: int,
        kernel: int,
        stride: int,
        activation: type[nn.Module],
        squeeze_excite: nn.Module | None = None,
    ):
        super().__init__()
        layers = [conv_bn(inputs, hidden, 1, activation=activation)] if hidden != inputs else []
        layers.append(conv_bn(hidden, hidden, kernel, stride, groups=hidden, activation=activation))
        if squeeze_excite is not None:
            layers.append(squeeze_excite)
        layers.append(conv_bn(hidden, outputs, 1))
        self.block = nn.Sequential(*layers)
        self.residual = stride == 1 and inputs == outputs

    def forward(self, x):
        return x + self.block(x) if self.residual else self.block(x)


class StackedBottlenecks(ImageClassifier):
    """The MobileNetV2 / EfficientNet layout: a strided 3x3 stem conv to 32 channels, stages of
    blocks, a 1x1 conv to 1280, pool, dropout, classifier. Each stage (output channels, repeats,
    first stride, *options) is that many ``block(inputs, outputs, stride, *options)``, only the
    first strided."""

    def __init__(self, stages: list[tuple], block, activation: type[nn.Module], classes: int = IMAGENET_CLASSES):
        channels = 32
        layers = [conv_bn(3, channels, 3, 2, activation=activation)]
        for outputs, repeats, stride, *options in stages:
            for index in range(repeats):
                layers.append(block(channels, outputs, stride if index == 0 else 1, *options))
                channels = outputs
        layers.append(conv_bn(channels, 1280, 1, activation=activation))
        super().__init__(layers, [nn.Dropout(0.2), nn.Linear(1280, classes)])


# (channels c, repeats n, first stride s, expansion t): Table 2 of the MobileNetV2 paper.
MOBILENET_V2_STAGES = [
    (16, 1, 1, 1),
    (24, 2, 2, 6),
    (32, 3, 2, 6),
    (64, 4, 2, 6),
    (96, 3, 1, 6),
    (160, 3, 2, 6),
    (320, 1, 1, 6),
]


def mobilenet_v2_block(inputs: int, outputs: int, stride: int, expansion: int) -> InvertedResidual:
    return InvertedResidual(inputs, inputs * expansion, outputs, 3, stride, nn.ReLU6)


@builtin("mobilenet_v2", full_size=True)
def mobilenet_v2():
    return image_model(lambda: StackedBottlenecks(MOBILENET_V2_STAGES, mobilenet_v2_block, nn.ReLU6))


# (kernel, expanded channels, output channels, squeeze-excite, activation, stride): Table 2 of the
# MobileNetV3 paper, the Small model.
MOBILENET_V3_SMALL_BLOCKS = [
    (3, 16, 16, True, nn.ReLU, 2),
    (3, 72, 24, False, nn.ReLU, 2),
    (3, 88, 24, False, nn.ReLU, 1),
    (5, 96, 40, True, nn.Hardswish, 2),
    (5, 240, 40, True, nn.Hardswish, 1),
    (5, 240, 40, True, nn.Hardswish, 1),
    (5, 120, 48, True, nn.Hardswish, 1),
    (5, 144, 48, True, nn.Hardswish, 1),
    (5, 288, 96, True, nn.Hardswish, 2),
    (5, 576, 96, True, nn.Hardswish, 1),
    (5, 576, 96, True, nn.Hardswish, 1),
]


class MobileNetV3Small(ImageClassifier):
    def __init__(self, classes: int = IMAGENET_CLASSES):
        layers = [conv_bn(3, 16, 3, 2, activation=nn.Hardswish)]
        channels = 16
        for kernel, hidden, outputs, squeeze, activation, stride in MOBILENET_V3_SMALL_BLOCKS:
            excite = SqueezeExcitation(hidden, make_divisible(hidden / 4), nn.ReLU, nn.Hardsigmoid) if squeeze else None
            layers.append(InvertedResidual(channels, hidden, outputs, kernel, stride, activation, excite))
            channels = outputs
        layers.append(conv_bn(channels, 576, 1, activation=nn.Hardswish))
        # The last two 1x1 convs act on a 1x1 map without BatchNorm: linear layers.
        super().__init__(layers, [nn.Linear(576, 1024), nn.Hardswish(), nn.Dropout(0.2), nn.Linear(1024, classes)])


@builtin("mobilenet_v3_small", full_size=True)
def mobilenet_v3_small():
    return image_model(MobileNetV3Small)
