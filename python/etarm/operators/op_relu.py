"""aten.relu: TOSA CLAMP to [0, inf] (NaN propagates as in torch); quantized (INT), a CLAMP
in the output's integer domain (clamping.py)."""

from etarm.operators.clamping import define_clamp
from etarm.operators.float_math import INF
from etarm.operators.pointwise import FloatUnaryVisitor
from etarm.operators.quantized import QuantizedLowering
from etarm.operators.registry import register


@register
class ReluVisitor(QuantizedLowering, FloatUnaryVisitor):
    targets = ("aten.relu.default",)
    profiles = frozenset({"FP", "INT"})

    def define_quantized(self, node, graph):
        define_clamp(graph, node, 0.0, None)

    def compute(self, c, x):
        return c.clamp(x, 0.0, INF)
