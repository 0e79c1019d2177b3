"""aten.maximum: TOSA MAXIMUM (NaN propagates, as in torch); int32 without the INT profile is
composed exactly (int_math)."""

from etarm.operators.dtype_rules import FLOAT_OR_INT
from etarm.operators.pointwise import BinaryVisitor
from etarm.operators.registry import register


@register
class MaximumVisitor(BinaryVisitor):
    targets = ("aten.maximum.default",)
    rule = FLOAT_OR_INT

    def compute(self, c, a, b):
        return c.maximum(a, b)
