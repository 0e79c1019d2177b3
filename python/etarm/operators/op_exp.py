"""aten.exp: TOSA EXP."""

from etarm.operators.pointwise import FloatUnaryVisitor
from etarm.operators.registry import register


@register
class ExpVisitor(FloatUnaryVisitor):
    targets = ("aten.exp.default",)

    def compute(self, c, x):
        return c.exp(x)
