"""aten.elu (selu and celu's alpha form too): x * scale for x > 0, else alpha * scale * expm1(x * input_scale)."""

from etarm.operators import float_math
from etarm.operators.pointwise import FloatUnaryVisitor
from etarm.operators.registry import register


def _param(node, index, name, default):
    return float(node.args[index] if len(node.args) > index else node.kwargs.get(name, default))


@register
class EluVisitor(FloatUnaryVisitor):
    targets = ("aten.elu.default",)

    def compute(self, c, x):
        node = c.node
        alpha = _param(node, 1, "alpha", 1.0)
        scale = _param(node, 2, "scale", 1.0)
        input_scale = _param(node, 3, "input_scale", 1.0)
        scaled_input = x if input_scale == 1.0 else c.mul(x, input_scale)
        negative = float_math.expm1(c, scaled_input)
        if alpha * scale != 1.0:
            negative = c.mul(negative, alpha * scale)
        positive = x if scale == 1.0 else c.mul(x, scale)
        return c.select(c.gt(x, 0.0), positive, negative)
