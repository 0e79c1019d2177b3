"""aten.log: TOSA LOG; quantized (INT), a lookup table (quantized_lookup.py)."""

from etarm.lowering.pointwise import FloatFunctionVisitor
from etarm.lowering.registry import register


@register
class LogVisitor(FloatFunctionVisitor):
    aten_name = "log"

    def compute(self, c, x):
        return c.log(x)
