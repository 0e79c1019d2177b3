"""aten.erf: TOSA ERF; quantized (INT), a lookup table (quantized_lookup.py)."""

import torch

from etarm.lowering.pointwise import FloatUnaryVisitor
from etarm.lowering.quantized_lookup import LookupLowering
from etarm.lowering.registry import register


@register
class ErfVisitor(LookupLowering, FloatUnaryVisitor):
    targets = ("aten.erf.default",)
    function = torch.erf

    def compute(self, c, x):
        return c.erf(x)
