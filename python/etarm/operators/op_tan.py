"""aten.tan: SIN(x) * RECIPROCAL(COS(x)); quantized (INT), a lookup table (quantized_lookup.py)."""

from etarm.lowering import float_math
from etarm.lowering.pointwise import FloatFunctionVisitor
from etarm.lowering.registry import register


@register
class TanVisitor(FloatFunctionVisitor):
    aten_name = "tan"

    def compute(self, c, x):
        return float_math.tan(c, x)
