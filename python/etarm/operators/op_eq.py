"""aten.eq: TOSA EQUAL; bools compare as NOT(LOGICAL_XOR).

Compares in torch's promoted type; int32 without the INT profile is composed exactly (int_math).
"""

import torch
import tosa_serializer as ts

from etarm.lowering.dtype_rules import ALL_KINDS
from etarm.lowering.pointwise import ComparisonVisitor
from etarm.lowering.registry import register


@register
class EqVisitor(ComparisonVisitor):
    targets = ("aten.eq.Tensor", "aten.eq.Scalar")
    rule = ALL_KINDS
    function = torch.eq

    def compute(self, c, a, b):
        return c.logical_not(c.logical_xor(a, b)) if a.dtype == ts.DType.BOOL else c.eq(a, b)
