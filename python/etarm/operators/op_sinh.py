"""aten.sinh: cancellation-free exp forms (see float_math.sinh); quantized (INT), a lookup table (quantized_lookup.py)."""

from etarm.lowering import float_math
from etarm.lowering.pointwise import FloatFunctionVisitor
from etarm.lowering.registry import register


@register
class SinhVisitor(FloatFunctionVisitor):
    aten_name = "sinh"

    def compute(self, c, x):
        return float_math.sinh(c, x)
