"""aten.leaky_relu: MAXIMUM(x, slope * x) for 0 < slope <= 1, else SELECT(x > 0, x, slope * x)."""

from etarm.operators.pointwise import FloatUnaryVisitor
from etarm.operators.registry import register


@register
class LeakyReluVisitor(FloatUnaryVisitor):
    targets = ("aten.leaky_relu.default",)

    def compute(self, c, x):
        node = c.node
        slope = float(node.args[1] if len(node.args) > 1 else node.kwargs.get("negative_slope", 0.01))
        scaled = c.mul(x, slope)
        if 0.0 < slope <= 1.0:  # (slope 0 would make MAXIMUM(inf, 0 * inf) NaN)
            return c.maximum(x, scaled)
        return c.select(c.gt(x, 0.0), x, scaled)
