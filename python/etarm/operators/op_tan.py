"""aten.tan: SIN(x) * RECIPROCAL(COS(x))."""

from etarm.operators import float_math
from etarm.operators.pointwise import FloatUnaryVisitor
from etarm.operators.registry import register


@register
class TanVisitor(FloatUnaryVisitor):
    targets = ("aten.tan.default",)

    def compute(self, c, x):
        return float_math.tan(c, x)
