"""aten.celu, kept whole: x for x > 0, else alpha * expm1(x / alpha) (see float_math.expm1).

Quantized (INT): a lookup table (quantized_lookup.py). Decomposed, celu would reuse its
input in several unquantized ops, which the INT profile cannot take.
"""

import torch

from etarm.lowering import float_math
from etarm.lowering.pointwise import FloatUnaryVisitor
from etarm.lowering.quantized_lookup import LookupLowering
from etarm.lowering.registry import register


def _alpha(node) -> float:
    return float(node.args[1] if len(node.args) > 1 else node.kwargs.get("alpha", 1.0))


@register
class CeluVisitor(LookupLowering, FloatUnaryVisitor):
    targets = ("aten.celu.default",)
    preserved_ops = (torch.ops.aten.celu.default,)

    def parameter_reason(self, node):
        if _alpha(node) == 0:
            return "aten.celu.default: alpha=0 divides by zero"
        return None

    def quantized_function(self, node):
        alpha = _alpha(node)
        return lambda x: torch.ops.aten.celu.default(x, alpha)

    def compute(self, c, x):
        alpha = _alpha(c.node)
        negative = float_math.expm1(c, x if alpha == 1.0 else c.mul(x, 1.0 / alpha))
        if alpha != 1.0:
            negative = c.mul(negative, alpha)
        return c.select(c.gt(x, 0.0), x, negative)
