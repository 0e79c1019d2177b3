"""aten.isinf: EQUAL(ABS(x), inf)."""

from etarm.operators.compose import Composer
from etarm.operators.dtype_rules import FLOAT_ONLY, dtype_reason
from etarm.operators.float_math import INF
from etarm.operators.registry import NodeVisitor, register


@register
class IsinfVisitor(NodeVisitor):
    targets = ("aten.isinf.default",)
    profiles = frozenset({"FP"})

    def check(self, node, spec):
        return dtype_reason("aten.isinf.default", node.args[0].meta["val"].dtype, spec, FLOAT_ONLY)

    def define(self, node, graph):
        c = Composer(graph, node)
        c.finish(c.eq(c.abs(node.args[0]), INF))
