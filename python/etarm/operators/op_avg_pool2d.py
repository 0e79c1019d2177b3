"""aten.avg_pool2d: TOSA AVG_POOL2D (see pooling.py for padding, ceil_mode, divisor_override)."""

from etarm.operators import pooling
from etarm.operators.registry import register


@register
class AvgPool2dVisitor(pooling.AvgPoolVisitor):
    targets = ("aten.avg_pool2d.default",)
    spatial_rank = 2
