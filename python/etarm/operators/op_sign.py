"""aten.sign: -1 / 0 / 1 by two comparisons and SELECTs (zeros and NaN pass through).

Quantized (INT): a lookup table of the function (quantized_lookup.py).
"""

import torch

from etarm.lowering import float_math
from etarm.lowering.pointwise import FloatUnaryVisitor
from etarm.lowering.quantized_lookup import LookupLowering
from etarm.lowering.registry import register


@register
class SignVisitor(LookupLowering, FloatUnaryVisitor):
    targets = ("aten.sign.default",)
    function = torch.sign

    def compute(self, c, x):
        return float_math.sign(c, x)
