"""aten.ge: TOSA GREATER_EQUAL."""

from etarm.lowering.pointwise import ComparisonVisitor
from etarm.lowering.registry import register


@register
class GeVisitor(ComparisonVisitor):
    aten_name = "ge"

    def compute(self, c, a, b):
        return c.ge(a, b)
