"""aten.rsqrt: TOSA RSQRT; quantized (INT), a lookup table (quantized_lookup.py)."""

import torch

from etarm.lowering.pointwise import FloatUnaryVisitor
from etarm.lowering.quantized_lookup import LookupLowering
from etarm.lowering.registry import register


@register
class RsqrtVisitor(LookupLowering, FloatUnaryVisitor):
    targets = ("aten.rsqrt.default",)
    function = torch.rsqrt

    def compute(self, c, x):
        return c.rsqrt(x)
