"""aten.reciprocal: TOSA RECIPROCAL."""

from etarm.operators.pointwise import FloatUnaryVisitor
from etarm.operators.registry import register


@register
class ReciprocalVisitor(FloatUnaryVisitor):
    targets = ("aten.reciprocal.default",)

    def compute(self, c, x):
        return c.reciprocal(x)
