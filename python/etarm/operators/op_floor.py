"""aten.floor: TOSA FLOOR; quantized (INT), a lookup table (quantized_lookup.py)."""

import torch

from etarm.operators.pointwise import FloatUnaryVisitor
from etarm.operators.quantized_lookup import LookupLowering
from etarm.operators.registry import register


@register
class FloorVisitor(LookupLowering, FloatUnaryVisitor):
    targets = ("aten.floor.default",)
    function = torch.floor

    def compute(self, c, x):
        return c.floor(x)
