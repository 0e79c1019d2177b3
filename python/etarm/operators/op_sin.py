"""aten.sin: TOSA SIN; quantized (INT), a lookup table (quantized_lookup.py)."""

from etarm.lowering.pointwise import FloatFunctionVisitor
from etarm.lowering.registry import register


@register
class SinVisitor(FloatFunctionVisitor):
    aten_name = "sin"

    def compute(self, c, x):
        return c.sin(x)
