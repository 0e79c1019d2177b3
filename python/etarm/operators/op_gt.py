"""aten.gt: TOSA GREATER.

Compares in torch's promoted type; int32 without the INT profile is composed exactly (int_math).
"""

import torch

from etarm.lowering.dtype_rules import FLOAT_OR_INT
from etarm.lowering.pointwise import ComparisonVisitor
from etarm.lowering.registry import register


@register
class GtVisitor(ComparisonVisitor):
    targets = ("aten.gt.Tensor", "aten.gt.Scalar")
    rule = FLOAT_OR_INT
    function = torch.gt

    def compute(self, c, a, b):
        return c.gt(a, b)
