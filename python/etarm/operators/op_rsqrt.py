"""aten.rsqrt: TOSA RSQRT."""

from etarm.operators.pointwise import FloatUnaryVisitor
from etarm.operators.registry import register


@register
class RsqrtVisitor(FloatUnaryVisitor):
    targets = ("aten.rsqrt.default",)

    def compute(self, c, x):
        return c.rsqrt(x)
