"""aten.atan: range reduction + polynomial (see float_math.atan)."""

from etarm.lowering import float_math
from etarm.lowering.pointwise import FloatFunctionVisitor
from etarm.lowering.registry import register


@register
class AtanVisitor(FloatFunctionVisitor):
    aten_name = "atan"

    def compute(self, c, x):
        return float_math.atan(c, x)
