"""aten.rsqrt: TOSA RSQRT; quantized (INT), a lookup table (quantized_lookup.py)."""

import torch

from etarm.operators.pointwise import FloatUnaryVisitor
from etarm.operators.quantized_lookup import LookupLowering
from etarm.operators.registry import register


@register
class RsqrtVisitor(LookupLowering, FloatUnaryVisitor):
    targets = ("aten.rsqrt.default",)
    function = torch.rsqrt

    def compute(self, c, x):
        return c.rsqrt(x)
