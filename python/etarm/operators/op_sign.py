"""aten.sign: -1 / 0 / 1 by two comparisons and SELECTs (zeros and NaN pass through)."""

from etarm.operators import float_math
from etarm.operators.pointwise import FloatUnaryVisitor
from etarm.operators.registry import register


@register
class SignVisitor(FloatUnaryVisitor):
    targets = ("aten.sign.default",)

    def compute(self, c, x):
        return float_math.sign(c, x)
