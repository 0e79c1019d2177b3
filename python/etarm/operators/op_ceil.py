"""aten.ceil: TOSA CEIL; quantized (INT), a lookup table (quantized_lookup.py)."""

from etarm.lowering.pointwise import FloatFunctionVisitor
from etarm.lowering.registry import register


@register
class CeilVisitor(FloatFunctionVisitor):
    aten_name = "ceil"

    def compute(self, c, x):
        return c.ceil(x)
