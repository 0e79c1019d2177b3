"""aten.std: the variance lowering, then sqrt as RECIPROCAL(RSQRT(v)) (TOSA has no SQRT).

Kept whole (instead of var + sqrt) so it does not depend on a sqrt lowering.
Quantized (INT): the integer variance, then a fixed-point square root (CLZ, int8 TABLE
guess, Newton) before the RESCALE into the output (normalization.lower_quantized_variance).
"""

import torch

from etarm.lowering.normalization import lower_quantized_variance_node, quantized_variance_reason
from etarm.lowering.quantized import is_int_spec, is_quantized
from etarm.lowering.reduction import lower_variance, variance_reason
from etarm.lowering.registry import NodeVisitor, register


@register
class StdVisitor(NodeVisitor):
    targets = ("aten.std.correction",)
    profiles = frozenset({"FP", "INT"})
    handles_qparams = True
    preserved_ops = (torch.ops.aten.std.correction,)

    def check(self, node, spec):
        reason = variance_reason(node)
        if reason is None and is_int_spec(spec):
            reason = quantized_variance_reason(node)
        return reason

    def define(self, node, graph):
        if is_quantized(node):
            lower_quantized_variance_node(graph, node, root=True)
            return
        lower_variance(graph, node, root=True)
