"""aten.log2: LOG(x) / ln(2)."""

import math

from etarm.operators.pointwise import FloatUnaryVisitor
from etarm.operators.registry import register


@register
class Log2Visitor(FloatUnaryVisitor):
    targets = ("aten.log2.default",)

    def compute(self, c, x):
        return c.mul(c.log(x), 1.0 / math.log(2.0))
