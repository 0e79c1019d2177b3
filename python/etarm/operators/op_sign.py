"""aten.sign: -1 / 0 / 1 by two comparisons and SELECTs (zeros and NaN pass through)."""

from etarm.lowering import float_math
from etarm.lowering.pointwise import FloatFunctionVisitor
from etarm.lowering.registry import register


@register
class SignVisitor(FloatFunctionVisitor):
    aten_name = "sign"

    def compute(self, c, x):
        return float_math.sign(c, x)
