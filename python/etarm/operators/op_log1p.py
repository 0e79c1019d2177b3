"""aten.log1p: Goldberg's log(1 + x), accurate near 0 (see float_math.log1p).

Quantized (INT): a lookup table of the function (quantized_lookup.py).
"""

import torch

from etarm.lowering import float_math
from etarm.lowering.pointwise import FloatUnaryVisitor
from etarm.lowering.quantized_lookup import LookupLowering
from etarm.lowering.registry import register


@register
class Log1pVisitor(LookupLowering, FloatUnaryVisitor):
    targets = ("aten.log1p.default",)
    function = torch.log1p

    def compute(self, c, x):
        return float_math.log1p(c, x)
