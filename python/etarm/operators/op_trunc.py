"""aten.trunc: FLOOR or CEIL by sign; quantized (INT), a lookup table (quantized_lookup.py)."""

from etarm.lowering.pointwise import FloatFunctionVisitor
from etarm.lowering.registry import register


@register
class TruncVisitor(FloatFunctionVisitor):
    aten_name = "trunc"

    def compute(self, c, x):
        return c.trunc(x)
