"""aten.expm1: Kahan's exp(x) - 1, accurate near 0 (see float_math.expm1).

Quantized (INT): a lookup table of the function (quantized_lookup.py).
"""

import torch

from etarm.lowering import float_math
from etarm.lowering.pointwise import FloatUnaryVisitor
from etarm.lowering.quantized_lookup import LookupLowering
from etarm.lowering.registry import register


@register
class Expm1Visitor(LookupLowering, FloatUnaryVisitor):
    targets = ("aten.expm1.default",)
    function = torch.expm1

    def compute(self, c, x):
        return float_math.expm1(c, x)
