"""aten.log2: LOG(x) / ln(2); quantized (INT), a lookup table (quantized_lookup.py)."""

import math

import torch

from etarm.lowering.pointwise import FloatUnaryVisitor
from etarm.lowering.quantized_lookup import LookupLowering
from etarm.lowering.registry import register


@register
class Log2Visitor(LookupLowering, FloatUnaryVisitor):
    targets = ("aten.log2.default",)
    function = torch.log2

    def compute(self, c, x):
        return c.mul(c.log(x), 1.0 / math.log(2.0))
