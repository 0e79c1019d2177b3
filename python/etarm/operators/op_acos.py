"""aten.acos: 2 atan(sqrt((1 - x) / (1 + x))); quantized (INT), a lookup table (quantized_lookup.py)."""

from etarm.lowering import float_math
from etarm.lowering.pointwise import FloatFunctionVisitor
from etarm.lowering.registry import register


@register
class AcosVisitor(FloatFunctionVisitor):
    aten_name = "acos"

    def compute(self, c, x):
        return float_math.acos(c, x)
