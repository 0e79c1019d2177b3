"""aten.isnan: NOT(EQUAL(x, x)) (NaN is the only value unequal to itself); quantized values
are never NaN (all false)."""

import torch

from etarm.lowering.pointwise import FloatTestVisitor
from etarm.lowering.registry import register


@register
class IsnanVisitor(FloatTestVisitor):
    targets = ("aten.isnan.default",)
    function = torch.isnan

    def compute(self, c, x):
        return c.ne(x, x)
