"""aten.ceil: TOSA CEIL."""

from etarm.operators.pointwise import FloatUnaryVisitor
from etarm.operators.registry import register


@register
class CeilVisitor(FloatUnaryVisitor):
    targets = ("aten.ceil.default",)

    def compute(self, c, x):
        return c.ceil(x)
