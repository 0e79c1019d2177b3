"""aten.tanh: TOSA TANH; quantized (INT), a lookup table (quantized_lookup.py)."""

import torch

from etarm.lowering.pointwise import FloatUnaryVisitor
from etarm.lowering.quantized_lookup import LookupLowering
from etarm.lowering.registry import register


@register
class TanhVisitor(LookupLowering, FloatUnaryVisitor):
    targets = ("aten.tanh.default",)
    function = torch.tanh

    def compute(self, c, x):
        return c.tanh(x)
