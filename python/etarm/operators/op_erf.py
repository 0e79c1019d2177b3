"""aten.erf: TOSA ERF."""

from etarm.operators.pointwise import FloatUnaryVisitor
from etarm.operators.registry import register


@register
class ErfVisitor(FloatUnaryVisitor):
    targets = ("aten.erf.default",)

    def compute(self, c, x):
        return c.erf(x)
