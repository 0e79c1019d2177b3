"""aten.log10: LOG(x) / ln(10); quantized (INT), a lookup table (quantized_lookup.py)."""

import math

import torch

from etarm.lowering.pointwise import FloatUnaryVisitor
from etarm.lowering.quantized_lookup import LookupLowering
from etarm.lowering.registry import register


@register
class Log10Visitor(LookupLowering, FloatUnaryVisitor):
    targets = ("aten.log10.default",)
    function = torch.log10

    def compute(self, c, x):
        return c.mul(c.log(x), 1.0 / math.log(10.0))
