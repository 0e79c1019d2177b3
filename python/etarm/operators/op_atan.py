"""aten.atan: range reduction + polynomial (see float_math.atan).

Quantized (INT): a lookup table of the function (quantized_lookup.py).
"""

import torch

from etarm.lowering import float_math
from etarm.lowering.pointwise import FloatUnaryVisitor
from etarm.lowering.quantized_lookup import LookupLowering
from etarm.lowering.registry import register


@register
class AtanVisitor(LookupLowering, FloatUnaryVisitor):
    targets = ("aten.atan.default",)
    function = torch.atan

    def compute(self, c, x):
        return float_math.atan(c, x)
