"""aten.sqrt: 1 / RSQRT(x), exact at 0 and inf (TOSA 1.0 has no SQRT)."""

from etarm.operators import float_math
from etarm.operators.pointwise import FloatUnaryVisitor
from etarm.operators.registry import register


@register
class SqrtVisitor(FloatUnaryVisitor):
    targets = ("aten.sqrt.default",)

    def compute(self, c, x):
        return float_math.sqrt(c, x)
