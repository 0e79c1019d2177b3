"""aten.reciprocal: TOSA RECIPROCAL; quantized (INT), a lookup table (quantized_lookup.py)."""

import torch

from etarm.lowering.pointwise import FloatUnaryVisitor
from etarm.lowering.quantized_lookup import LookupLowering
from etarm.lowering.registry import register


@register
class ReciprocalVisitor(LookupLowering, FloatUnaryVisitor):
    targets = ("aten.reciprocal.default",)
    function = torch.reciprocal

    def compute(self, c, x):
        return c.reciprocal(x)
