"""aten.elu (selu and celu's alpha form too): x * scale for x > 0, else alpha * scale * expm1(x * input_scale).

Quantized (INT): a lookup table of the function (quantized_lookup.py).
"""

import torch

from etarm.lowering import float_math
from etarm.lowering.pointwise import FloatUnaryVisitor
from etarm.lowering.quantized_lookup import LookupLowering
from etarm.lowering.registry import register


def _params(node) -> tuple[float, float, float]:
    """(alpha, scale, input_scale)."""
    names = (("alpha", 1.0), ("scale", 1.0), ("input_scale", 1.0))
    return tuple(
        float(node.args[i + 1] if len(node.args) > i + 1 else node.kwargs.get(name, default))
        for i, (name, default) in enumerate(names)
    )


@register
class EluVisitor(LookupLowering, FloatUnaryVisitor):
    targets = ("aten.elu.default",)

    def quantized_function(self, node):
        alpha, scale, input_scale = _params(node)
        return lambda x: torch.ops.aten.elu.default(x, alpha, scale, input_scale)

    def compute(self, c, x):
        alpha, scale, input_scale = _params(c.node)
        scaled_input = x if input_scale == 1.0 else c.mul(x, input_scale)
        negative = float_math.expm1(c, scaled_input)
        if alpha * scale != 1.0:
            negative = c.mul(negative, alpha * scale)
        positive = x if scale == 1.0 else c.mul(x, scale)
        return c.select(c.gt(x, 0.0), positive, negative)
