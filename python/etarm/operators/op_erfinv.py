"""aten.erfinv: Giles' single-precision polynomials (~3e-7 relative, see float_math.erfinv)."""

from etarm.lowering import float_math
from etarm.lowering.pointwise import FloatFunctionVisitor
from etarm.lowering.registry import register


@register
class ErfinvVisitor(FloatFunctionVisitor):
    aten_name = "erfinv"

    def compute(self, c, x):
        return float_math.erfinv(c, x)
