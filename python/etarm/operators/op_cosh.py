"""aten.cosh: (e + 1/e) / 2 with e = exp(|x|); quantized (INT), a lookup table (quantized_lookup.py)."""

from etarm.lowering import float_math
from etarm.lowering.pointwise import FloatFunctionVisitor
from etarm.lowering.registry import register


@register
class CoshVisitor(FloatFunctionVisitor):
    aten_name = "cosh"

    def compute(self, c, x):
        return float_math.cosh(c, x)
