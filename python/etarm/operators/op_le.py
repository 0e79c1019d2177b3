"""aten.le: TOSA GREATER_EQUAL with swapped operands."""

from etarm.lowering.pointwise import ComparisonVisitor
from etarm.lowering.registry import register


@register
class LeVisitor(ComparisonVisitor):
    aten_name = "le"

    def compute(self, c, a, b):
        return c.le(a, b)
