"""aten.max_pool1d, kept whole: TOSA MAX_POOL2D over a height-1 image."""

import torch

from etarm.lowering import pooling
from etarm.lowering.registry import register


@register
class MaxPool1dVisitor(pooling.MaxPoolVisitor):
    targets = ("aten.max_pool1d.default",)
    preserved_ops = (torch.ops.aten.max_pool1d.default,)
    spatial_rank = 1
