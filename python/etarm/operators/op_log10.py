"""aten.log10: LOG(x) / ln(10); quantized (INT), a lookup table (quantized_lookup.py)."""

import math

from etarm.lowering.pointwise import FloatFunctionVisitor
from etarm.lowering.registry import register


@register
class Log10Visitor(FloatFunctionVisitor):
    aten_name = "log10"

    def compute(self, c, x):
        return c.mul(c.log(x), 1.0 / math.log(10.0))
