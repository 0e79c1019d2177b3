"""aten.softplus, kept whole: log1p(exp(beta x)) / beta, or x where beta x > threshold (as torch).

Quantized (INT): a lookup table of the function (quantized_lookup.py).
"""

import torch
import torch.nn.functional as F

from etarm.lowering import float_math
from etarm.lowering.pointwise import FloatUnaryVisitor
from etarm.lowering.quantized_lookup import LookupLowering
from etarm.lowering.registry import register


def _params(node) -> tuple[float, float]:
    """(beta, threshold)."""
    beta = float(node.args[1] if len(node.args) > 1 else node.kwargs.get("beta", 1.0))
    threshold = float(node.args[2] if len(node.args) > 2 else node.kwargs.get("threshold", 20.0))
    return beta, threshold


@register
class SoftplusVisitor(LookupLowering, FloatUnaryVisitor):
    targets = ("aten.softplus.default",)
    preserved_ops = (torch.ops.aten.softplus.default,)

    def quantized_function(self, node):
        beta, threshold = _params(node)
        return lambda x: F.softplus(x, beta, threshold)

    def compute(self, c, x):
        beta, threshold = _params(c.node)
        scaled = x if beta == 1.0 else c.mul(x, beta)
        soft = float_math.log1p(c, c.exp(scaled))
        if beta != 1.0:
            soft = c.mul(soft, 1.0 / beta)
        return c.select(c.gt(scaled, threshold), x, soft)
