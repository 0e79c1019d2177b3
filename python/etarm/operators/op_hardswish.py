"""aten.hardswish, kept whole (to_edge would decompose it into casts, two clamps and a div):
x * CLAMP(x + 3, 0, 6) / 6."""

import torch

from etarm.lowering.pointwise import FloatFunctionVisitor
from etarm.lowering.registry import register


@register
class HardswishVisitor(FloatFunctionVisitor):
    aten_name = "hardswish"
    preserved_ops = (torch.ops.aten.hardswish.default,)

    def compute(self, c, x):
        return c.mul(c.mul(x, c.clamp(c.add(x, 3.0), 0.0, 6.0)), 1.0 / 6.0)
