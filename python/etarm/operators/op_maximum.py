"""aten.maximum: TOSA MAXIMUM (NaN propagates, as in torch); int32 without the INT profile is
composed exactly (int_math). Quantized (INT): MAXIMUM of the widened integers (quantized_extrema.py).
"""

import tosa_serializer as ts

from etarm.lowering.dtype_rules import FLOAT_OR_INT
from etarm.lowering.pointwise import BinaryVisitor
from etarm.lowering.quantized_extrema import quantized_extremum
from etarm.lowering.quantized_lookup import QuantizedBranch
from etarm.lowering.registry import register


@register
class MaximumVisitor(QuantizedBranch, BinaryVisitor):
    targets = ("aten.maximum.default",)
    rule = FLOAT_OR_INT

    def define_quantized(self, node, graph):
        quantized_extremum(graph, node, ts.Op.MAXIMUM)

    def compute(self, c, a, b):
        return c.maximum(a, b)
