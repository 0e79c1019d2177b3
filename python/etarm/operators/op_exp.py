"""aten.exp: TOSA EXP; quantized (INT), a lookup table (quantized_lookup.py)."""

import torch

from etarm.lowering.pointwise import FloatUnaryVisitor
from etarm.lowering.quantized_lookup import LookupLowering
from etarm.lowering.registry import register


@register
class ExpVisitor(LookupLowering, FloatUnaryVisitor):
    targets = ("aten.exp.default",)
    function = torch.exp

    def compute(self, c, x):
        return c.exp(x)
