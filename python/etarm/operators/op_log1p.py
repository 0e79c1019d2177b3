"""aten.log1p: Goldberg's log(1 + x), accurate near 0 (see float_math.log1p)."""

from etarm.operators import float_math
from etarm.operators.pointwise import FloatUnaryVisitor
from etarm.operators.registry import register


@register
class Log1pVisitor(FloatUnaryVisitor):
    targets = ("aten.log1p.default",)

    def compute(self, c, x):
        return float_math.log1p(c, x)
