"""aten.asin: atan(x / sqrt((1 - x)(1 + x)))."""

from etarm.operators import float_math
from etarm.operators.pointwise import FloatUnaryVisitor
from etarm.operators.registry import register


@register
class AsinVisitor(FloatUnaryVisitor):
    targets = ("aten.asin.default",)

    def compute(self, c, x):
        return float_math.asin(c, x)
