"""aten.isinf: EQUAL(ABS(x), inf); quantized values are never infinite (all false)."""

import torch

from etarm.operators.float_math import INF
from etarm.operators.pointwise import FloatTestVisitor
from etarm.operators.registry import register


@register
class IsinfVisitor(FloatTestVisitor):
    targets = ("aten.isinf.default",)
    function = torch.isinf

    def compute(self, c, x):
        return c.eq(c.abs(x), INF)
