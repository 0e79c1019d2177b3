"""aten.ne: TOSA NOT(EQUAL) (true for NaN, as in torch); bools compare as LOGICAL_XOR."""

import tosa_serializer as ts

from etarm.lowering.dtype_rules import ALL_KINDS
from etarm.lowering.pointwise import ComparisonVisitor
from etarm.lowering.registry import register


@register
class NeVisitor(ComparisonVisitor):
    aten_name = "ne"
    rule = ALL_KINDS

    def compute(self, c, a, b):
        return c.logical_xor(a, b) if a.dtype == ts.DType.BOOL else c.ne(a, b)
