"""aten.minimum: TOSA MINIMUM (NaN propagates, as in torch); int32 without the INT profile is
composed exactly (int_math)."""

from etarm.operators.dtype_rules import FLOAT_OR_INT
from etarm.operators.pointwise import BinaryVisitor
from etarm.operators.registry import register


@register
class MinimumVisitor(BinaryVisitor):
    targets = ("aten.minimum.default",)
    rule = FLOAT_OR_INT

    def compute(self, c, a, b):
        return c.minimum(a, b)
