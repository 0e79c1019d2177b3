"""aten.cos: TOSA COS; quantized (INT), a lookup table (quantized_lookup.py)."""

from etarm.lowering.pointwise import FloatFunctionVisitor
from etarm.lowering.registry import register


@register
class CosVisitor(FloatFunctionVisitor):
    aten_name = "cos"

    def compute(self, c, x):
        return c.cos(x)
