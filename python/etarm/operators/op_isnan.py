"""aten.isnan: NOT(EQUAL(x, x)) (NaN is the only value unequal to itself)."""

from etarm.operators.compose import Composer
from etarm.operators.dtype_rules import FLOAT_ONLY, dtype_reason
from etarm.operators.registry import NodeVisitor, register


@register
class IsnanVisitor(NodeVisitor):
    targets = ("aten.isnan.default",)
    profiles = frozenset({"FP"})

    def check(self, node, spec):
        return dtype_reason("aten.isnan.default", node.args[0].meta["val"].dtype, spec, FLOAT_ONLY)

    def define(self, node, graph):
        c = Composer(graph, node)
        x = c.tensor(node.args[0])
        c.finish(c.ne(x, x))
