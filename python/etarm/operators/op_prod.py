"""aten.prod: REDUCE_PRODUCT over the reduced axis (all axes for prod.default).

FP only: TOSA's REDUCE_PRODUCT takes floats, and an integer product of N quantized values
needs about 9N bits, more than int32 holds beyond three factors, so INT keeps it on CPU.
"""

import tosa_serializer as ts

from etarm.lowering.reduction import lower_reduction, reduction_reason
from etarm.lowering.registry import NodeVisitor, register
from etarm.op_names import op_name


def _dim(node):
    return node.args[1] if op_name(node.target) == "aten.prod.dim_int" else None


@register
class ProdVisitor(NodeVisitor):
    targets = ("aten.prod.dim_int", "aten.prod.default")
    profiles = frozenset({"FP"})

    def check(self, node, spec):
        return reduction_reason(node, _dim(node))

    def define(self, node, graph):
        lower_reduction(graph, node, ts.Op.REDUCE_PRODUCT, _dim(node))
