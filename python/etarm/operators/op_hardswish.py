"""aten.hardswish, kept whole (to_edge would decompose it into casts, two clamps and a div):
x * CLAMP(x + 3, 0, 6) / 6.

Quantized (INT): a lookup table of the function (quantized_lookup.py).
"""

import torch

from etarm.lowering.pointwise import FloatUnaryVisitor
from etarm.lowering.quantized_lookup import LookupLowering
from etarm.lowering.registry import register


@register
class HardswishVisitor(LookupLowering, FloatUnaryVisitor):
    targets = ("aten.hardswish.default",)
    function = torch.ops.aten.hardswish.default
    preserved_ops = (torch.ops.aten.hardswish.default,)

    def compute(self, c, x):
        return c.mul(c.mul(x, c.clamp(c.add(x, 3.0), 0.0, 6.0)), 1.0 / 6.0)
