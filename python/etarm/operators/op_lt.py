"""aten.lt: TOSA GREATER with swapped operands.

Compares in torch's promoted type; int32 without the INT profile is composed exactly (int_math).
"""

import torch

from etarm.lowering.dtype_rules import FLOAT_OR_INT
from etarm.lowering.pointwise import ComparisonVisitor
from etarm.lowering.registry import register


@register
class LtVisitor(ComparisonVisitor):
    targets = ("aten.lt.Tensor", "aten.lt.Scalar")
    rule = FLOAT_OR_INT
    function = torch.lt

    def compute(self, c, a, b):
        return c.lt(a, b)
