"""aten.logit, kept whole: log(z / (1 - z)) with z = x clamped to [eps, 1 - eps] when eps is given.

Quantized (INT): a lookup table of the function (quantized_lookup.py).
"""

import torch

from etarm.lowering.pointwise import FloatUnaryVisitor
from etarm.lowering.quantized_lookup import LookupLowering
from etarm.lowering.registry import register


def _eps(node):
    return node.args[1] if len(node.args) > 1 else node.kwargs.get("eps")


@register
class LogitVisitor(LookupLowering, FloatUnaryVisitor):
    targets = ("aten.logit.default",)
    preserved_ops = (torch.ops.aten.logit.default,)

    def quantized_function(self, node):
        eps = _eps(node)
        return lambda x: torch.logit(x, eps)

    def compute(self, c, x):
        eps = _eps(c.node)
        if eps is not None:
            x = c.clamp(x, float(eps), 1.0 - float(eps))
        return c.log(c.mul(x, c.reciprocal(c.sub(1.0, x))))
