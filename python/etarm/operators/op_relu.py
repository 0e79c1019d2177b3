"""aten.relu: TOSA CLAMP to [0, inf] (NaN propagates as in torch); quantized (INT), a CLAMP
in the output's integer domain (clamping.py)."""

from etarm.lowering.clamping import define_clamp
from etarm.lowering.float_math import INF
from etarm.lowering.pointwise import FloatUnaryVisitor
from etarm.lowering.quantized import QuantizedLowering
from etarm.lowering.registry import register


@register
class ReluVisitor(QuantizedLowering, FloatUnaryVisitor):
    targets = ("aten.relu.default",)
    profiles = frozenset({"FP", "INT"})

    def define_quantized(self, node, graph):
        define_clamp(graph, node, 0.0, None)

    def compute(self, c, x):
        return c.clamp(x, 0.0, INF)
