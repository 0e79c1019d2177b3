"""aten.std: the variance lowering, then sqrt as RECIPROCAL(RSQRT(v)) (TOSA has no SQRT).

Kept whole (instead of var + sqrt) so it does not depend on a sqrt lowering.
"""

import torch

from etarm.operators.reduction import lower_variance, variance_reason
from etarm.operators.registry import NodeVisitor, register


@register
class StdVisitor(NodeVisitor):
    targets = ("aten.std.correction",)
    profiles = frozenset({"FP"})
    preserved_ops = (torch.ops.aten.std.correction,)

    def check(self, node, spec):
        return variance_reason(node)

    def define(self, node, graph):
        lower_variance(graph, node, root=True)
