"""aten.exp: TOSA EXP; quantized (INT), a lookup table (quantized_lookup.py)."""

import torch

from etarm.operators.pointwise import FloatUnaryVisitor
from etarm.operators.quantized_lookup import LookupLowering
from etarm.operators.registry import register


@register
class ExpVisitor(LookupLowering, FloatUnaryVisitor):
    targets = ("aten.exp.default",)
    function = torch.exp

    def compute(self, c, x):
        return c.exp(x)
