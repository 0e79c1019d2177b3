"""aten.atanh: log1p(2x / (1 - x)) / 2; quantized (INT), a lookup table (quantized_lookup.py)."""

import torch

from etarm.lowering import float_math
from etarm.lowering.pointwise import FloatUnaryVisitor
from etarm.lowering.quantized_lookup import LookupLowering
from etarm.lowering.registry import register


@register
class AtanhVisitor(LookupLowering, FloatUnaryVisitor):
    targets = ("aten.atanh.default",)
    function = torch.atanh

    def compute(self, c, x):
        return float_math.atanh(c, x)
