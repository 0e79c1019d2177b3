"""aten.floor: TOSA FLOOR; quantized (INT), a lookup table (quantized_lookup.py)."""

from etarm.lowering.pointwise import FloatFunctionVisitor
from etarm.lowering.registry import register


@register
class FloorVisitor(FloatFunctionVisitor):
    aten_name = "floor"

    def compute(self, c, x):
        return c.floor(x)
