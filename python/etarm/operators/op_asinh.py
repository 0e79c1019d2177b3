"""aten.asinh: log1p form near 0, log(2|x|) for large |x|; quantized (INT), a lookup table (quantized_lookup.py)."""

from etarm.lowering import float_math
from etarm.lowering.pointwise import FloatFunctionVisitor
from etarm.lowering.registry import register


@register
class AsinhVisitor(FloatFunctionVisitor):
    aten_name = "asinh"

    def compute(self, c, x):
        return float_math.asinh(c, x)
