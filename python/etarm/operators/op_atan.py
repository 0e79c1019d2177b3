"""aten.atan: range reduction + polynomial (see float_math.atan)."""

from etarm.operators import float_math
from etarm.operators.pointwise import FloatUnaryVisitor
from etarm.operators.registry import register


@register
class AtanVisitor(FloatUnaryVisitor):
    targets = ("aten.atan.default",)

    def compute(self, c, x):
        return float_math.atan(c, x)
