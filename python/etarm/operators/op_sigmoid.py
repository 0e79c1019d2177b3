"""aten.sigmoid: TOSA SIGMOID; quantized (INT), a TABLE lookup (operators/quantized.py)."""

import torch

from etarm.lowering.pointwise import FloatUnaryVisitor
from etarm.lowering.quantized import TableLowering
from etarm.lowering.registry import register


@register
class SigmoidVisitor(TableLowering, FloatUnaryVisitor):
    targets = ("aten.sigmoid.default",)
    profiles = frozenset({"FP", "INT"})
    table_function = torch.sigmoid

    def compute(self, c, x):
        return c.sigmoid(x)
