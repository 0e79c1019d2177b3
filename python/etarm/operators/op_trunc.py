"""aten.trunc: FLOOR or CEIL by sign; quantized (INT), a lookup table (quantized_lookup.py)."""

import torch

from etarm.lowering.pointwise import FloatUnaryVisitor
from etarm.lowering.quantized_lookup import LookupLowering
from etarm.lowering.registry import register


@register
class TruncVisitor(LookupLowering, FloatUnaryVisitor):
    targets = ("aten.trunc.default",)
    function = torch.trunc

    def compute(self, c, x):
        return c.trunc(x)
