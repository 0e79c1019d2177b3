"""aten.erfinv: Giles' single-precision polynomials (~3e-7 relative, see float_math.erfinv).

Quantized (INT): a lookup table of the function (quantized_lookup.py).
"""

import torch

from etarm.lowering import float_math
from etarm.lowering.pointwise import FloatUnaryVisitor
from etarm.lowering.quantized_lookup import LookupLowering
from etarm.lowering.registry import register


@register
class ErfinvVisitor(LookupLowering, FloatUnaryVisitor):
    targets = ("aten.erfinv.default",)
    function = torch.erfinv

    def compute(self, c, x):
        return float_math.erfinv(c, x)
