"""aten.acosh: log1p form near 1, log(2x) for large x; quantized (INT), a lookup table (quantized_lookup.py)."""

import torch

from etarm.lowering import float_math
from etarm.lowering.pointwise import FloatUnaryVisitor
from etarm.lowering.quantized_lookup import LookupLowering
from etarm.lowering.registry import register


@register
class AcoshVisitor(LookupLowering, FloatUnaryVisitor):
    targets = ("aten.acosh.default",)
    function = torch.acosh

    def compute(self, c, x):
        return float_math.acosh(c, x)
