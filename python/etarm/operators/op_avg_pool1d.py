"""aten.avg_pool1d, kept whole: TOSA AVG_POOL2D over a height-1 image."""

import torch

from etarm.lowering import pooling
from etarm.lowering.registry import register


@register
class AvgPool1dVisitor(pooling.AvgPoolVisitor):
    targets = ("aten.avg_pool1d.default",)
    preserved_ops = (torch.ops.aten.avg_pool1d.default,)
    spatial_rank = 1
