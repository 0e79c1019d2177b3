"""aten.ge: TOSA GREATER_EQUAL.

Compares in torch's promoted type; int32 without the INT profile is composed exactly (int_math).
"""

import torch

from etarm.lowering.dtype_rules import FLOAT_OR_INT
from etarm.lowering.pointwise import ComparisonVisitor
from etarm.lowering.registry import register


@register
class GeVisitor(ComparisonVisitor):
    targets = ("aten.ge.Tensor", "aten.ge.Scalar")
    rule = FLOAT_OR_INT
    function = torch.ge

    def compute(self, c, a, b):
        return c.ge(a, b)
