"""aten.tanh: TOSA TANH; quantized (INT), a lookup table (quantized_lookup.py)."""

from etarm.lowering.pointwise import FloatFunctionVisitor
from etarm.lowering.registry import register


@register
class TanhVisitor(FloatFunctionVisitor):
    aten_name = "tanh"

    def compute(self, c, x):
        return c.tanh(x)
