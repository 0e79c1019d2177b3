"""aten.asinh: log1p form near 0, log(2|x|) for large |x|; quantized (INT), a lookup table (quantized_lookup.py)."""

import torch

from etarm.operators import float_math
from etarm.operators.pointwise import FloatUnaryVisitor
from etarm.operators.quantized_lookup import LookupLowering
from etarm.operators.registry import register


@register
class AsinhVisitor(LookupLowering, FloatUnaryVisitor):
    targets = ("aten.asinh.default",)
    function = torch.asinh

    def compute(self, c, x):
        return float_math.asinh(c, x)
