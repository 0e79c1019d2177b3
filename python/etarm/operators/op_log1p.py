"""aten.log1p: Goldberg's log(1 + x), accurate near 0 (see float_math.log1p)."""

from etarm.lowering import float_math
from etarm.lowering.pointwise import FloatFunctionVisitor
from etarm.lowering.registry import register


@register
class Log1pVisitor(FloatFunctionVisitor):
    aten_name = "log1p"

    def compute(self, c, x):
        return float_math.log1p(c, x)
