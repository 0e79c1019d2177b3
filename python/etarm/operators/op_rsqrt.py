"""aten.rsqrt: TOSA RSQRT; quantized (INT), a lookup table (quantized_lookup.py)."""

from etarm.lowering.pointwise import FloatFunctionVisitor
from etarm.lowering.registry import register


@register
class RsqrtVisitor(FloatFunctionVisitor):
    aten_name = "rsqrt"

    def compute(self, c, x):
        return c.rsqrt(x)
