"""aten.floor: TOSA FLOOR; quantized (INT), a lookup table (quantized_lookup.py)."""

import torch

from etarm.lowering.pointwise import FloatUnaryVisitor
from etarm.lowering.quantized_lookup import LookupLowering
from etarm.lowering.registry import register


@register
class FloorVisitor(LookupLowering, FloatUnaryVisitor):
    targets = ("aten.floor.default",)
    function = torch.floor

    def compute(self, c, x):
        return c.floor(x)
