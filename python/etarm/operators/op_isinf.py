"""aten.isinf: EQUAL(ABS(x), inf); quantized values are never infinite (all false)."""

import torch

from etarm.lowering.float_math import INF
from etarm.lowering.pointwise import FloatTestVisitor
from etarm.lowering.registry import register


@register
class IsinfVisitor(FloatTestVisitor):
    targets = ("aten.isinf.default",)
    function = torch.isinf

    def compute(self, c, x):
        return c.eq(c.abs(x), INF)
