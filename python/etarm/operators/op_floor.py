"""aten.floor: TOSA FLOOR."""

from etarm.operators.pointwise import FloatUnaryVisitor
from etarm.operators.registry import register


@register
class FloorVisitor(FloatUnaryVisitor):
    targets = ("aten.floor.default",)

    def compute(self, c, x):
        return c.floor(x)
