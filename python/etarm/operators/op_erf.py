"""aten.erf: TOSA ERF; quantized (INT), a lookup table (quantized_lookup.py)."""

from etarm.lowering.pointwise import FloatFunctionVisitor
from etarm.lowering.registry import register


@register
class ErfVisitor(FloatFunctionVisitor):
    aten_name = "erf"

    def compute(self, c, x):
        return c.erf(x)
