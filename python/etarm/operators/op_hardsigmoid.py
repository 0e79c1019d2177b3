"""aten.hardsigmoid, kept whole (to_edge would decompose it into casts, two clamps and a div):
CLAMP(x + 3, 0, 6) / 6."""

import torch

from etarm.lowering.pointwise import FloatFunctionVisitor
from etarm.lowering.registry import register


@register
class HardsigmoidVisitor(FloatFunctionVisitor):
    aten_name = "hardsigmoid"
    preserved_ops = (torch.ops.aten.hardsigmoid.default,)

    def compute(self, c, x):
        return c.mul(c.clamp(c.add(x, 3.0), 0.0, 6.0), 1.0 / 6.0)
