"""aten.tanh: TOSA TANH."""

from etarm.operators.pointwise import FloatUnaryVisitor
from etarm.operators.registry import register


@register
class TanhVisitor(FloatUnaryVisitor):
    targets = ("aten.tanh.default",)

    def compute(self, c, x):
        return c.tanh(x)
