"""aten.abs: TOSA ABS (int32 without the INT profile: SELECT(x < 0, -x, x), composed in int_math)."""

from etarm.operators.compose import Composer
from etarm.operators.dtype_rules import FLOAT_OR_INT, tensor_args_reason
from etarm.operators.registry import NodeVisitor, register


@register
class AbsVisitor(NodeVisitor):
    targets = ("aten.abs.default",)
    profiles = frozenset({"FP"})

    def check(self, node, spec):
        return tensor_args_reason(node, spec, FLOAT_OR_INT)

    def define(self, node, graph):
        c = Composer(graph, node)
        c.finish(c.abs(node.args[0]))
