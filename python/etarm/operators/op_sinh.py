"""aten.sinh: cancellation-free exp forms (see float_math.sinh); quantized (INT), a lookup table (quantized_lookup.py)."""

import torch

from etarm.operators import float_math
from etarm.operators.pointwise import FloatUnaryVisitor
from etarm.operators.quantized_lookup import LookupLowering
from etarm.operators.registry import register


@register
class SinhVisitor(LookupLowering, FloatUnaryVisitor):
    targets = ("aten.sinh.default",)
    function = torch.sinh

    def compute(self, c, x):
        return float_math.sinh(c, x)
