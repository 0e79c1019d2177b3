"""aten.sqrt: 1 / RSQRT(x), exact at 0 and inf (TOSA 1.0 has no SQRT).

Quantized (INT): a lookup table of the function (quantized_lookup.py).
"""

import torch

from etarm.lowering import float_math
from etarm.lowering.pointwise import FloatUnaryVisitor
from etarm.lowering.quantized_lookup import LookupLowering
from etarm.lowering.registry import register


@register
class SqrtVisitor(LookupLowering, FloatUnaryVisitor):
    targets = ("aten.sqrt.default",)
    function = torch.sqrt

    def compute(self, c, x):
        return float_math.sqrt(c, x)
