"""aten.neg: TOSA NEGATE for floats; 0 - x for int32 (legal in both profiles, NEGATE i32 is not)."""

from etarm.operators.compose import Composer
from etarm.operators.dtype_rules import ANY_PROFILE, FLOAT, FP, INT, tensor_args_reason
from etarm.operators.registry import NodeVisitor, register


@register
class NegVisitor(NodeVisitor):
    targets = ("aten.neg.default",)
    profiles = frozenset({"FP"})

    def check(self, node, spec):
        return tensor_args_reason(node, spec, {FLOAT: FP, INT: ANY_PROFILE})

    def define(self, node, graph):
        c = Composer(graph, node)
        c.finish(c.neg(node.args[0]))
