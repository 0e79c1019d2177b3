"""aten.leaky_relu: MAXIMUM(x, slope * x) for 0 < slope <= 1, else SELECT(x > 0, x, slope * x).

Quantized (INT): a lookup table of the function (quantized_lookup.py); one TABLE for int8,
cheaper than the comparison, two rescales and a select of the integer form.
"""

import torch.nn.functional as F

from etarm.lowering.pointwise import FloatUnaryVisitor
from etarm.lowering.quantized_lookup import LookupLowering
from etarm.lowering.registry import register


def _slope(node) -> float:
    return float(node.args[1] if len(node.args) > 1 else node.kwargs.get("negative_slope", 0.01))


@register
class LeakyReluVisitor(LookupLowering, FloatUnaryVisitor):
    targets = ("aten.leaky_relu.default",)

    def quantized_function(self, node):
        slope = _slope(node)
        return lambda x: F.leaky_relu(x, slope)

    def compute(self, c, x):
        slope = _slope(c.node)
        scaled = c.mul(x, slope)
        if 0.0 < slope <= 1.0:  # (slope 0 would make MAXIMUM(inf, 0 * inf) NaN)
            return c.maximum(x, scaled)
        return c.select(c.gt(x, 0.0), x, scaled)
