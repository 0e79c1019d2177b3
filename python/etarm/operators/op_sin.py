"""aten.sin: TOSA SIN."""

from etarm.operators.pointwise import FloatUnaryVisitor
from etarm.operators.registry import register


@register
class SinVisitor(FloatUnaryVisitor):
    targets = ("aten.sin.default",)

    def compute(self, c, x):
        return c.sin(x)
