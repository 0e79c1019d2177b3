"""aten.sum: REDUCE_SUM over each reduced axis (keepdim=False reshapes the kept axes away)."""

import tosa_serializer as ts

from etarm.operators.reduction import lower_reduction, reduction_reason
from etarm.operators.registry import NodeVisitor, register
from etarm.operators.tensor_math import argument


@register
class SumVisitor(NodeVisitor):
    targets = ("aten.sum.dim_IntList", "aten.sum.default")
    profiles = frozenset({"FP"})

    def check(self, node, spec):
        return reduction_reason(node, argument(node, 1, "dim"))

    def define(self, node, graph):
        lower_reduction(graph, node, ts.Op.REDUCE_SUM, argument(node, 1, "dim"))
