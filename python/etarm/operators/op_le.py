"""aten.le: TOSA GREATER_EQUAL with swapped operands.

Compares in torch's promoted type; int32 without the INT profile is composed exactly (int_math).
"""

import torch

from etarm.lowering.dtype_rules import FLOAT_OR_INT
from etarm.lowering.pointwise import ComparisonVisitor
from etarm.lowering.registry import register


@register
class LeVisitor(ComparisonVisitor):
    targets = ("aten.le.Tensor", "aten.le.Scalar")
    rule = FLOAT_OR_INT
    function = torch.le

    def compute(self, c, a, b):
        return c.le(a, b)
