"""aten.minimum: TOSA MINIMUM (NaN propagates, as in torch); int32 without the INT profile is
composed exactly (int_math). Quantized (INT): MINIMUM of the widened integers (quantized_extrema.py).
"""

import tosa_serializer as ts

from etarm.lowering.dtype_rules import FLOAT_OR_INT
from etarm.lowering.pointwise import BinaryVisitor
from etarm.lowering.quantized_extrema import quantized_extremum
from etarm.lowering.quantized_lookup import QuantizedBranch
from etarm.lowering.registry import register


@register
class MinimumVisitor(QuantizedBranch, BinaryVisitor):
    targets = ("aten.minimum.default",)
    rule = FLOAT_OR_INT

    def define_quantized(self, node, graph):
        quantized_extremum(graph, node, ts.Op.MINIMUM)

    def compute(self, c, a, b):
        return c.minimum(a, b)
