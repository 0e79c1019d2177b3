"""aten.expm1: Kahan's exp(x) - 1, accurate near 0 (see float_math.expm1)."""

from etarm.operators import float_math
from etarm.operators.pointwise import FloatUnaryVisitor
from etarm.operators.registry import register


@register
class Expm1Visitor(FloatUnaryVisitor):
    targets = ("aten.expm1.default",)

    def compute(self, c, x):
        return float_math.expm1(c, x)
