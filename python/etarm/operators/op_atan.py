"""aten.atan: range reduction + polynomial (see float_math.atan).

Quantized (INT): a lookup table of the function (quantized_lookup.py).
"""

import torch

from etarm.operators import float_math
from etarm.operators.pointwise import FloatUnaryVisitor
from etarm.operators.quantized_lookup import LookupLowering
from etarm.operators.registry import register


@register
class AtanVisitor(LookupLowering, FloatUnaryVisitor):
    targets = ("aten.atan.default",)
    function = torch.atan

    def compute(self, c, x):
        return float_math.atan(c, x)
