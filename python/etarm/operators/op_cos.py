"""aten.cos: TOSA COS; quantized (INT), a lookup table (quantized_lookup.py)."""

import torch

from etarm.lowering.pointwise import FloatUnaryVisitor
from etarm.lowering.quantized_lookup import LookupLowering
from etarm.lowering.registry import register


@register
class CosVisitor(LookupLowering, FloatUnaryVisitor):
    targets = ("aten.cos.default",)
    function = torch.cos

    def compute(self, c, x):
        return c.cos(x)
