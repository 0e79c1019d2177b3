"""aten.erfinv: Giles' single-precision polynomials (~3e-7 relative, see float_math.erfinv)."""

from etarm.operators import float_math
from etarm.operators.pointwise import FloatUnaryVisitor
from etarm.operators.registry import register


@register
class ErfinvVisitor(FloatUnaryVisitor):
    targets = ("aten.erfinv.default",)

    def compute(self, c, x):
        return float_math.erfinv(c, x)
