"""aten.trunc: FLOOR or CEIL by sign."""

from etarm.operators.pointwise import FloatUnaryVisitor
from etarm.operators.registry import register


@register
class TruncVisitor(FloatUnaryVisitor):
    targets = ("aten.trunc.default",)

    def compute(self, c, x):
        return c.trunc(x)
