"""aten.cosh: (e + 1/e) / 2 with e = exp(|x|)."""

from etarm.operators import float_math
from etarm.operators.pointwise import FloatUnaryVisitor
from etarm.operators.registry import register


@register
class CoshVisitor(FloatUnaryVisitor):
    targets = ("aten.cosh.default",)

    def compute(self, c, x):
        return float_math.cosh(c, x)
