"""aten.asin: atan(x / sqrt((1 - x)(1 + x))); quantized (INT), a lookup table (quantized_lookup.py)."""

from etarm.lowering import float_math
from etarm.lowering.pointwise import FloatFunctionVisitor
from etarm.lowering.registry import register


@register
class AsinVisitor(FloatFunctionVisitor):
    aten_name = "asin"

    def compute(self, c, x):
        return float_math.asin(c, x)
