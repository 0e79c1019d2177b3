"""aten.avg_pool2d: TOSA AVG_POOL2D (see pooling.py for padding, ceil_mode, divisor_override)."""

from etarm.lowering import pooling
from etarm.lowering.registry import register


@register
class AvgPool2dVisitor(pooling.AvgPoolVisitor):
    targets = ("aten.avg_pool2d.default",)
    spatial_rank = 2
