"""aten.expm1: Kahan's exp(x) - 1, accurate near 0 (see float_math.expm1)."""

from etarm.lowering import float_math
from etarm.lowering.pointwise import FloatFunctionVisitor
from etarm.lowering.registry import register


@register
class Expm1Visitor(FloatFunctionVisitor):
    aten_name = "expm1"

    def compute(self, c, x):
        return float_math.expm1(c, x)
