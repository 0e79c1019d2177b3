"""aten.log: TOSA LOG; quantized (INT), a lookup table (quantized_lookup.py)."""

import torch

from etarm.lowering.pointwise import FloatUnaryVisitor
from etarm.lowering.quantized_lookup import LookupLowering
from etarm.lowering.registry import register


@register
class LogVisitor(LookupLowering, FloatUnaryVisitor):
    targets = ("aten.log.default",)
    function = torch.log

    def compute(self, c, x):
        return c.log(x)
