"""aten.asinh: log1p form near 0, log(2|x|) for large |x|; quantized (INT), a lookup table (quantized_lookup.py)."""

import torch

from etarm.lowering import float_math
from etarm.lowering.pointwise import FloatUnaryVisitor
from etarm.lowering.quantized_lookup import LookupLowering
from etarm.lowering.registry import register


@register
class AsinhVisitor(LookupLowering, FloatUnaryVisitor):
    targets = ("aten.asinh.default",)
    function = torch.asinh

    def compute(self, c, x):
        return float_math.asinh(c, x)
