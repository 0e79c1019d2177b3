"""aten.log: TOSA LOG."""

from etarm.operators.pointwise import FloatUnaryVisitor
from etarm.operators.registry import register


@register
class LogVisitor(FloatUnaryVisitor):
    targets = ("aten.log.default",)

    def compute(self, c, x):
        return c.log(x)
