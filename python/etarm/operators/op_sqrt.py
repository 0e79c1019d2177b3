"""aten.sqrt: 1 / RSQRT(x), exact at 0 and inf (TOSA 1.0 has no SQRT)."""

from etarm.lowering import float_math
from etarm.lowering.pointwise import FloatFunctionVisitor
from etarm.lowering.registry import register


@register
class SqrtVisitor(FloatFunctionVisitor):
    aten_name = "sqrt"

    def compute(self, c, x):
        return float_math.sqrt(c, x)
