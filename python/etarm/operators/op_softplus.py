"""aten.softplus, kept whole: log1p(exp(beta x)) / beta, or x where beta x > threshold (as torch)."""

import torch

from etarm.operators import float_math
from etarm.operators.pointwise import FloatUnaryVisitor
from etarm.operators.registry import register


@register
class SoftplusVisitor(FloatUnaryVisitor):
    targets = ("aten.softplus.default",)
    preserved_ops = (torch.ops.aten.softplus.default,)

    def compute(self, c, x):
        node = c.node
        beta = float(node.args[1] if len(node.args) > 1 else node.kwargs.get("beta", 1.0))
        threshold = float(node.args[2] if len(node.args) > 2 else node.kwargs.get("threshold", 20.0))
        scaled = x if beta == 1.0 else c.mul(x, beta)
        soft = float_math.log1p(c, c.exp(scaled))
        if beta != 1.0:
            soft = c.mul(soft, 1.0 / beta)
        return c.select(c.gt(scaled, threshold), x, soft)
