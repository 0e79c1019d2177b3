"""aten.atanh: log1p(2x / (1 - x)) / 2; quantized (INT), a lookup table (quantized_lookup.py)."""

from etarm.lowering import float_math
from etarm.lowering.pointwise import FloatFunctionVisitor
from etarm.lowering.registry import register


@register
class AtanhVisitor(FloatFunctionVisitor):
    aten_name = "atanh"

    def compute(self, c, x):
        return float_math.atanh(c, x)
