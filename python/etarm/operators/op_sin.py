"""aten.sin: TOSA SIN; quantized (INT), a lookup table (quantized_lookup.py)."""

import torch

from etarm.lowering.pointwise import FloatUnaryVisitor
from etarm.lowering.quantized_lookup import LookupLowering
from etarm.lowering.registry import register


@register
class SinVisitor(LookupLowering, FloatUnaryVisitor):
    targets = ("aten.sin.default",)
    function = torch.sin

    def compute(self, c, x):
        return c.sin(x)
