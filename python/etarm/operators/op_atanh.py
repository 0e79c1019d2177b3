"""aten.atanh: log1p(2x / (1 - x)) / 2."""

from etarm.operators import float_math
from etarm.operators.pointwise import FloatUnaryVisitor
from etarm.operators.registry import register


@register
class AtanhVisitor(FloatUnaryVisitor):
    targets = ("aten.atanh.default",)

    def compute(self, c, x):
        return float_math.atanh(c, x)
