"""aten.ne: TOSA NOT(EQUAL) (true for NaN, as in torch); bools compare as LOGICAL_XOR.

Compares in torch's promoted type; int32 without the INT profile is composed exactly (int_math).
"""

import torch
import tosa_serializer as ts

from etarm.lowering.dtype_rules import ALL_KINDS
from etarm.lowering.pointwise import ComparisonVisitor
from etarm.lowering.registry import register


@register
class NeVisitor(ComparisonVisitor):
    targets = ("aten.ne.Tensor", "aten.ne.Scalar")
    rule = ALL_KINDS
    function = torch.ne

    def compute(self, c, a, b):
        return c.logical_xor(a, b) if a.dtype == ts.DType.BOOL else c.ne(a, b)
