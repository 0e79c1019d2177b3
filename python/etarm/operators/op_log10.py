"""aten.log10: LOG(x) / ln(10)."""

import math

from etarm.operators.pointwise import FloatUnaryVisitor
from etarm.operators.registry import register


@register
class Log10Visitor(FloatUnaryVisitor):
    targets = ("aten.log10.default",)

    def compute(self, c, x):
        return c.mul(c.log(x), 1.0 / math.log(10.0))
