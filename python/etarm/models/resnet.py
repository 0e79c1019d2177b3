"""ResNet-18 and ResNet-50 (He et al. 2015) at their ImageNet shapes, seeded random weights.

ResNet-50's bottlenecks stride in their 3x3 conv (the layout most deployed checkpoints use).
"""

from __future__ import annotations

from torch import nn

from etarm.models.layers import IMAGENET_CLASSES, ImageClassifier, conv_bn, image_model
from etarm.models.registry import builtin


class BasicBlock(nn.Module):
    """Two 3x3 convs; the shortcut is a strided 1x1 conv where the shape changes."""

    expansion = 1

    def __init__(self, inputs: int, width: int, stride: int):
        super().__init__()
        self.body = nn.Sequential(conv_bn(inputs, width, 3, stride, activation=nn.ReLU), conv_bn(width, width, 3))
        self.shortcut = conv_bn(inputs, width, 1, stride) if stride != 1 or inputs != width else nn.Identity()
        self.relu = nn.ReLU()

    def forward(self, x):
        return self.relu(self.body(x) + self.shortcut(x))


class Bottleneck(nn.Module):
    """1x1 reduce, 3x3 (strided), 1x1 expand to 4x the width; projection shortcut where needed."""

    expansion = 4

    def __init__(self, inputs: int, width: int, stride: int):
        super().__init__()
        outputs = width * self.expansion
        self.body = nn.Sequential(
            conv_bn(inputs, width, 1, activation=nn.ReLU),
            conv_bn(width, width, 3, stride, activation=nn.ReLU),
            conv_bn(width, outputs, 1),
        )
        self.shortcut = conv_bn(inputs, outputs, 1, stride) if stride != 1 or inputs != outputs else nn.Identity()
        self.relu = nn.ReLU()

    def forward(self, x):
        return self.relu(self.body(x) + self.shortcut(x))


class ResNet(ImageClassifier):
    """7x7/2 stem conv, 3x3/2 max pool, four stages of blocks (widths 64..512), pool, classifier."""

    def __init__(self, block: type[BasicBlock | Bottleneck], repeats: list[int], classes: int = IMAGENET_CLASSES):
        layers = [conv_bn(3, 64, 7, 2, activation=nn.ReLU), nn.MaxPool2d(3, 2, 1)]
        channels = 64
        for stage, count in enumerate(repeats):
            width = 64 * 2**stage
            for index in range(count):
                layers.append(block(channels, width, 2 if index == 0 and stage > 0 else 1))
                channels = width * block.expansion
        super().__init__(layers, [nn.Linear(channels, classes)])


@builtin("resnet18", full_size=True)
def resnet18():
    return image_model(lambda: ResNet(BasicBlock, [2, 2, 2, 2]))


@builtin("resnet50", full_size=True)
def resnet50():
    return image_model(lambda: ResNet(Bottleneck, [3, 4, 6, 3]))
