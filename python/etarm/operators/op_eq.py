"""aten.eq: TOSA EQUAL; bools compare as NOT(LOGICAL_XOR)."""

import tosa_serializer as ts

from etarm.lowering.dtype_rules import ALL_KINDS
from etarm.lowering.pointwise import ComparisonVisitor
from etarm.lowering.registry import register


@register
class EqVisitor(ComparisonVisitor):
    aten_name = "eq"
    rule = ALL_KINDS

    def compute(self, c, a, b):
        return c.logical_not(c.logical_xor(a, b)) if a.dtype == ts.DType.BOOL else c.eq(a, b)
