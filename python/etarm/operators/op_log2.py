"""aten.log2: LOG(x) / ln(2); quantized (INT), a lookup table (quantized_lookup.py)."""

import math

from etarm.lowering.pointwise import FloatFunctionVisitor
from etarm.lowering.registry import register


@register
class Log2Visitor(FloatFunctionVisitor):
    aten_name = "log2"

    def compute(self, c, x):
        return c.mul(c.log(x), 1.0 / math.log(2.0))
