"""aten.lt: TOSA GREATER with swapped operands."""

from etarm.lowering.pointwise import ComparisonVisitor
from etarm.lowering.registry import register


@register
class LtVisitor(ComparisonVisitor):
    aten_name = "lt"

    def compute(self, c, a, b):
        return c.lt(a, b)
