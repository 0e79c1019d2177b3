"""aten.cos: TOSA COS; quantized (INT), a lookup table (quantized_lookup.py)."""

import torch

from etarm.operators.pointwise import FloatUnaryVisitor
from etarm.operators.quantized_lookup import LookupLowering
from etarm.operators.registry import register


@register
class CosVisitor(LookupLowering, FloatUnaryVisitor):
    targets = ("aten.cos.default",)
    function = torch.cos

    def compute(self, c, x):
        return c.cos(x)
