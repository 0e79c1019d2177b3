"""aten.asinh: log1p form near 0, log(2|x|) for large |x|."""

from etarm.operators import float_math
from etarm.operators.pointwise import FloatUnaryVisitor
from etarm.operators.registry import register


@register
class AsinhVisitor(FloatUnaryVisitor):
    targets = ("aten.asinh.default",)

    def compute(self, c, x):
        return float_math.asinh(c, x)
