"""aten.exp: TOSA EXP; quantized (INT), a lookup table (quantized_lookup.py)."""

from etarm.lowering.pointwise import FloatFunctionVisitor
from etarm.lowering.registry import register


@register
class ExpVisitor(FloatFunctionVisitor):
    aten_name = "exp"

    def compute(self, c, x):
        return c.exp(x)
