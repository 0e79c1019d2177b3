"""aten.cos: TOSA COS."""

from etarm.operators.pointwise import FloatUnaryVisitor
from etarm.operators.registry import register


@register
class CosVisitor(FloatUnaryVisitor):
    targets = ("aten.cos.default",)

    def compute(self, c, x):
        return c.cos(x)
