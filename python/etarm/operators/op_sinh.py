"""aten.sinh: cancellation-free exp forms (see float_math.sinh)."""

from etarm.operators import float_math
from etarm.operators.pointwise import FloatUnaryVisitor
from etarm.operators.registry import register


@register
class SinhVisitor(FloatUnaryVisitor):
    targets = ("aten.sinh.default",)

    def compute(self, c, x):
        return float_math.sinh(c, x)
