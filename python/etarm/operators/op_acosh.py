"""aten.acosh: log1p form near 1, log(2x) for large x."""

from etarm.operators import float_math
from etarm.operators.pointwise import FloatUnaryVisitor
from etarm.operators.registry import register


@register
class AcoshVisitor(FloatUnaryVisitor):
    targets = ("aten.acosh.default",)

    def compute(self, c, x):
        return float_math.acosh(c, x)
