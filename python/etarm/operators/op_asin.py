"""aten.asin: atan(x / sqrt((1 - x)(1 + x))); quantized (INT), a lookup table (quantized_lookup.py)."""

import torch

from etarm.lowering import float_math
from etarm.lowering.pointwise import FloatUnaryVisitor
from etarm.lowering.quantized_lookup import LookupLowering
from etarm.lowering.registry import register


@register
class AsinVisitor(LookupLowering, FloatUnaryVisitor):
    targets = ("aten.asin.default",)
    function = torch.asin

    def compute(self, c, x):
        return float_math.asin(c, x)
