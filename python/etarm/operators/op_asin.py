"""aten.asin: atan(x / sqrt((1 - x)(1 + x))); quantized (INT), a lookup table (quantized_lookup.py)."""

import torch

from etarm.operators import float_math
from etarm.operators.pointwise import FloatUnaryVisitor
from etarm.operators.quantized_lookup import LookupLowering
from etarm.operators.registry import register


@register
class AsinVisitor(LookupLowering, FloatUnaryVisitor):
    targets = ("aten.asin.default",)
    function = torch.asin

    def compute(self, c, x):
        return float_math.asin(c, x)
