"""aten.tan: SIN(x) * RECIPROCAL(COS(x)); quantized (INT), a lookup table (quantized_lookup.py)."""

import torch

from etarm.lowering import float_math
from etarm.lowering.pointwise import FloatUnaryVisitor
from etarm.lowering.quantized_lookup import LookupLowering
from etarm.lowering.registry import register


@register
class TanVisitor(LookupLowering, FloatUnaryVisitor):
    targets = ("aten.tan.default",)
    function = torch.tan

    def compute(self, c, x):
        return float_math.tan(c, x)
