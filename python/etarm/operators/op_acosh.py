"""aten.acosh: log1p form near 1, log(2x) for large x; quantized (INT), a lookup table (quantized_lookup.py)."""

from etarm.lowering import float_math
from etarm.lowering.pointwise import FloatFunctionVisitor
from etarm.lowering.registry import register


@register
class AcoshVisitor(FloatFunctionVisitor):
    aten_name = "acosh"

    def compute(self, c, x):
        return float_math.acosh(c, x)
