"""aten.logit, kept whole: log(z / (1 - z)) with z = x clamped to [eps, 1 - eps] when eps is given."""

import torch

from etarm.operators.pointwise import FloatUnaryVisitor
from etarm.operators.registry import register


@register
class LogitVisitor(FloatUnaryVisitor):
    targets = ("aten.logit.default",)
    preserved_ops = (torch.ops.aten.logit.default,)

    def compute(self, c, x):
        node = c.node
        eps = node.args[1] if len(node.args) > 1 else node.kwargs.get("eps")
        if eps is not None:
            x = c.clamp(x, float(eps), 1.0 - float(eps))
        return c.log(c.mul(x, c.reciprocal(c.sub(1.0, x))))
