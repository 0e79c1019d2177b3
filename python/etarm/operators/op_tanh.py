"""aten.tanh: TOSA TANH; quantized (INT), a lookup table (quantized_lookup.py)."""

import torch

from etarm.operators.pointwise import FloatUnaryVisitor
from etarm.operators.quantized_lookup import LookupLowering
from etarm.operators.registry import register


@register
class TanhVisitor(LookupLowering, FloatUnaryVisitor):
    targets = ("aten.tanh.default",)
    function = torch.tanh

    def compute(self, c, x):
        return c.tanh(x)
