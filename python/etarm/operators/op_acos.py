"""aten.acos: 2 atan(sqrt((1 - x) / (1 + x)))."""

from etarm.operators import float_math
from etarm.operators.pointwise import FloatUnaryVisitor
from etarm.operators.registry import register


@register
class AcosVisitor(FloatUnaryVisitor):
    targets = ("aten.acos.default",)

    def compute(self, c, x):
        return float_math.acos(c, x)
