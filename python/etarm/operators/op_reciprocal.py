"""aten.reciprocal: TOSA RECIPROCAL; quantized (INT), a lookup table (quantized_lookup.py)."""

from etarm.lowering.pointwise import FloatFunctionVisitor
from etarm.lowering.registry import register


@register
class ReciprocalVisitor(FloatFunctionVisitor):
    aten_name = "reciprocal"

    def compute(self, c, x):
        return c.reciprocal(x)
