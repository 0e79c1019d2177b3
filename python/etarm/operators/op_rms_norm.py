"""aten.rms_norm, kept whole: x * RSQRT(mean(x^2) + eps) * weight over the normalized dims.

Whole, it is one flattened reduction and needs no pow/rsqrt lowerings of its own.
"""

import torch

from etarm.operators import tensor_math as tm
from etarm.operators.normalization import affine, channel_vector, optional_operand_reason, rms_scale, trailing_flattened
from etarm.operators.registry import NodeVisitor, register


@register
class RmsNormVisitor(NodeVisitor):
    targets = ("aten.rms_norm.default",)
    profiles = frozenset({"FP"})
    preserved_ops = (torch.ops.aten.rms_norm.default,)

    def check(self, node, spec):
        value = node.args[0].meta["val"]
        return tm.float_tensor_reason(value) or optional_operand_reason(node, [("weight", tm.argument(node, 2, "weight"))])

    def define(self, node, graph):
        source, normalized_shape = node.args[:2]
        weight = tm.argument(node, 2, "weight")
        eps = tm.argument(node, 3, "eps")
        x = graph.value(source)
        if eps is None:
            eps = torch.finfo(source.meta["val"].dtype).eps
        flat = trailing_flattened(x.shape, len(normalized_shape))
        work = tm.widen(graph, graph.reshape(x, flat))
        # Like torch: normalize in float32, return to the input dtype, then apply the weight.
        result = tm.narrow(graph, rms_scale(graph, work, [len(flat) - 1], eps), x.dtype)
        result = affine(graph, result, channel_vector(graph, weight, flat[-1:], x.dtype), None)
        tm.bind_result(graph, node, result)
