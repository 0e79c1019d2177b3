"""aten.cosh: (e + 1/e) / 2 with e = exp(|x|); quantized (INT), a lookup table (quantized_lookup.py)."""

import torch

from etarm.lowering import float_math
from etarm.lowering.pointwise import FloatUnaryVisitor
from etarm.lowering.quantized_lookup import LookupLowering
from etarm.lowering.registry import register


@register
class CoshVisitor(LookupLowering, FloatUnaryVisitor):
    targets = ("aten.cosh.default",)
    function = torch.cosh

    def compute(self, c, x):
        return float_math.cosh(c, x)
