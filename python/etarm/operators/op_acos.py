"""aten.acos: 2 atan(sqrt((1 - x) / (1 + x))); quantized (INT), a lookup table (quantized_lookup.py)."""

import torch

from etarm.lowering import float_math
from etarm.lowering.pointwise import FloatUnaryVisitor
from etarm.lowering.quantized_lookup import LookupLowering
from etarm.lowering.registry import register


@register
class AcosVisitor(LookupLowering, FloatUnaryVisitor):
    targets = ("aten.acos.default",)
    function = torch.acos

    def compute(self, c, x):
        return float_math.acos(c, x)
