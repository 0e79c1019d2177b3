"""aten.gt: TOSA GREATER."""

from etarm.lowering.pointwise import ComparisonVisitor
from etarm.lowering.registry import register


@register
class GtVisitor(ComparisonVisitor):
    aten_name = "gt"

    def compute(self, c, a, b):
        return c.gt(a, b)
