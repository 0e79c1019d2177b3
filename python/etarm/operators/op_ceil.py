"""aten.ceil: TOSA CEIL; quantized (INT), a lookup table (quantized_lookup.py)."""

import torch

from etarm.lowering.pointwise import FloatUnaryVisitor
from etarm.lowering.quantized_lookup import LookupLowering
from etarm.lowering.registry import register


@register
class CeilVisitor(LookupLowering, FloatUnaryVisitor):
    targets = ("aten.ceil.default",)
    function = torch.ceil

    def compute(self, c, x):
        return c.ceil(x)
