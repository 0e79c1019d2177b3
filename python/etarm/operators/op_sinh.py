"""aten.sinh: cancellation-free exp forms (see float_math.sinh); quantized (INT), a lookup table (quantized_lookup.py)."""

import torch

from etarm.lowering import float_math
from etarm.lowering.pointwise import FloatUnaryVisitor
from etarm.lowering.quantized_lookup import LookupLowering
from etarm.lowering.registry import register


@register
class SinhVisitor(LookupLowering, FloatUnaryVisitor):
    targets = ("aten.sinh.default",)
    function = torch.sinh

    def compute(self, c, x):
        return float_math.sinh(c, x)
