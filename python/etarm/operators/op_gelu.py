"""aten.gelu: x/2 (1 + erf(x / sqrt 2)) with TOSA ERF, or the tanh approximation.

Quantized (INT): a lookup table of the function, either approximation (quantized_lookup.py).
"""

import math

import torch.nn.functional as F

from etarm.lowering.pointwise import FloatUnaryVisitor
from etarm.lowering.quantized_lookup import LookupLowering
from etarm.lowering.registry import register

_APPROXIMATIONS = ("none", "tanh")


def _approximate(node) -> str:
    return node.kwargs.get("approximate", node.args[1] if len(node.args) > 1 else "none")


@register
class GeluVisitor(LookupLowering, FloatUnaryVisitor):
    targets = ("aten.gelu.default",)

    def parameter_reason(self, node):
        if _approximate(node) not in _APPROXIMATIONS:
            return f"aten.gelu.default: approximate={_approximate(node)!r} is not one of {_APPROXIMATIONS}"
        return None

    def quantized_function(self, node):
        approximate = _approximate(node)
        return lambda x: F.gelu(x, approximate=approximate)

    def compute(self, c, x):
        if _approximate(c.node) == "tanh":
            cube = c.mul(c.mul(x, x), x)
            inner = c.mul(c.add(x, c.mul(cube, 0.044715)), math.sqrt(2.0 / math.pi))
            gate = c.tanh(inner)
        else:
            gate = c.erf(c.mul(x, math.sqrt(0.5)))
        return c.mul(c.mul(x, 0.5), c.add(gate, 1.0))
